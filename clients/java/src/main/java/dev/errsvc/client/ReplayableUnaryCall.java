package dev.errsvc.client;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A unary call that holds its one request so that it can be made again: what {@link
 * RetryInfoInterceptor} and {@link CutAnswerRetryInterceptor} share. The first attempt starts at
 * halfClose, when the request is known (the stubs call start, request, sendMessage and halfClose in
 * one go). An attempt's headers and message reach the caller's listener only with its close, so the
 * caller sees exactly one attempt: the one that is not made again. When an attempt closes, {@link
 * #afterAttempt} decides whether its answer is delivered or the call is made again, at once or after
 * a delay.
 *
 * <p>An attempt's ClientCall is used under {@code lock} (cancel, which is thread-safe, aside), so
 * that a caller's request never races the start of another attempt (on a timer's thread, say): a
 * ClientCall is not thread-safe. The caller's listener is called outside it (unless a direct call
 * executor runs an attempt's callbacks inline, within one of these calls).
 */
abstract class ReplayableUnaryCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
  /** What becomes of an attempt that closed: {@link #DELIVER}, {@link #AGAIN} or {@link #againAfter}. */
  static final class Verdict {
    /** The attempt's answer goes to the caller: the call is over. */
    static final Verdict DELIVER = new Verdict(0, null);
    /** The call is made again at once, within the attempt's close. */
    static final Verdict AGAIN = new Verdict(0, null);

    private final long delayNanos;
    private final @Nullable ScheduledExecutorService timer;

    private Verdict(long delayNanos, @Nullable ScheduledExecutorService timer) {
      this.delayNanos = delayNanos;
      this.timer = timer;
    }

    /** The call is made again after {@code delay}, on {@code timer}; a cancel meanwhile ends it. */
    static Verdict againAfter(Duration delay, ScheduledExecutorService timer) {
      return new Verdict(delay.toNanos(), timer);
    }
  }

  private final MethodDescriptor<ReqT, RespT> method;
  /** The call's options, each attempt's too (a verdict may read the deadline). */
  final CallOptions callOptions;
  private final Channel next;
  private final Object lock = new Object();
  private @Nullable Listener<RespT> listener;
  private @Nullable Metadata headers;
  private @Nullable ReqT request;
  private int requested;
  private int attempts;
  private boolean cancelled;
  /** The attempt under way, or the last one once the call is over; null before and between attempts. */
  private @Nullable ClientCall<ReqT, RespT> current;
  /** The start of the next attempt, while the call waits for it. */
  private @Nullable ScheduledFuture<?> pending;

  ReplayableUnaryCall(MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    this.method = method;
    this.callOptions = callOptions;
    this.next = next;
  }

  /**
   * What becomes of an attempt (the first is 1) that closed with {@code status}; {@code answerBegan}
   * says its response headers had arrived. Asked under {@code lock}, and not once the call is
   * cancelled: then the attempt's answer is delivered.
   */
  abstract Verdict afterAttempt(int attempt, boolean answerBegan, Status status, Metadata trailers);

  @Override
  public void start(Listener<RespT> responseListener, Metadata headers) {
    synchronized (lock) {
      this.listener = responseListener;
      this.headers = headers;
    }
  }

  @Override
  public void request(int numMessages) {
    synchronized (lock) {
      requested += numMessages;
      if (current != null) {
        current.request(numMessages);
      }
    }
  }

  @Override
  public void sendMessage(ReqT message) {
    synchronized (lock) {
      request = message;
    }
  }

  @Override
  public void halfClose() {
    synchronized (lock) {
      startAttempt();
    }
  }

  @Override
  public void cancel(@Nullable String message, @Nullable Throwable cause) {
    ClientCall<ReqT, RespT> attempt;
    Listener<RespT> unstarted = null;
    synchronized (lock) {
      if (cancelled) {
        return;
      }
      // From here on no attempt starts, so current is the last one (if any).
      cancelled = true;
      attempt = current;
      if (pending != null) {
        pending.cancel(false);
        pending = null;
      }
      if (attempt == null) {
        // Before or between attempts: nobody else will close it.
        unstarted = listener;
      }
    }
    if (attempt != null) {
      // Its close closes the caller's listener.
      attempt.cancel(message, cause);
    } else if (unstarted != null) {
      unstarted.onClose(Status.CANCELLED.withDescription(message).withCause(cause), new Metadata());
    }
  }

  @Override
  public boolean isReady() {
    synchronized (lock) {
      return current == null || current.isReady();
    }
  }

  @Override
  public Attributes getAttributes() {
    synchronized (lock) {
      return current == null ? Attributes.EMPTY : current.getAttributes();
    }
  }

  /** Starts an attempt with the call's headers, request and flow control so far; under lock. */
  private void startAttempt() {
    pending = null;
    if (cancelled || listener == null) {
      return;
    }
    ClientCall<ReqT, RespT> call = next.newCall(method, callOptions);
    current = call;
    attempts++;
    // The channel writes its own entries into the headers it is given: each attempt gets a copy.
    Metadata h = new Metadata();
    if (headers != null) {
      h.merge(headers);
    }
    call.start(new AttemptListener(attempts), h);
    if (requested > 0) {
      call.request(requested);
    }
    if (request != null) {
      call.sendMessage(request);
    }
    call.halfClose();
  }

  /** {@link #startAttempt}, taking the lock: a timer's task. */
  private void startAttemptLocked() {
    synchronized (lock) {
      startAttempt();
    }
  }

  /** Holds one attempt's answer until it is known whether the call is made again. */
  private final class AttemptListener extends Listener<RespT> {
    private final int attempt;
    private @Nullable Metadata answerHeaders;
    private @Nullable RespT message;

    AttemptListener(int attempt) {
      this.attempt = attempt;
    }

    @Override
    public void onHeaders(Metadata h) {
      answerHeaders = h;
    }

    @Override
    public void onMessage(RespT m) {
      message = m;
    }

    @Override
    public void onReady() {
      Listener<RespT> l;
      synchronized (lock) {
        l = listener;
      }
      if (l != null) {
        l.onReady();
      }
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      Listener<RespT> l;
      synchronized (lock) {
        if (!cancelled) {
          Verdict then = afterAttempt(attempt, answerHeaders != null, status, trailers);
          if (then == Verdict.AGAIN) {
            startAttempt();
            return;
          }
          if (then.timer != null) {
            // Between attempts: a cancel now closes the caller's listener itself.
            current = null;
            pending = then.timer.schedule(ReplayableUnaryCall.this::startAttemptLocked, then.delayNanos, TimeUnit.NANOSECONDS);
            return;
          }
        }
        l = listener;
      }
      if (l == null) {
        return;
      }
      if (answerHeaders != null) {
        l.onHeaders(answerHeaders);
      }
      if (message != null) {
        l.onMessage(message);
      }
      l.onClose(status, trailers);
    }
  }
}
