package dev.errsvc.client;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import org.jspecify.annotations.Nullable;

/**
 * Makes a unary call once more when its connection broke after the answer had begun: the call
 * closed UNAVAILABLE after its response headers arrived (a replica that crashed mid-answer).
 *
 * <p>The channel's retry policy cannot: gRPC commits a call once response headers arrive (gRFC A6),
 * because the server may have acted on it. An errsvc call has no side effects, so a replica that
 * crashes mid-answer costs the caller one more call, not an error. Nothing else is retried here: an
 * UNAVAILABLE before any headers is the retry policy's, and the second call's result stands,
 * whatever it is. Streaming calls pass through untouched.
 *
 * <p>{@link ErrsvcClient} installs it, closest to the channel, when retries are on (the Go SDK's
 * {@code retryCutAnswers}).
 */
final class CutAnswerRetryInterceptor implements ClientInterceptor {
  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    if (method.getType() != MethodDescriptor.MethodType.UNARY) {
      return next.newCall(method, callOptions);
    }
    return new OnceMoreCall<>(method, callOptions, next);
  }

  /**
   * A unary call that holds its one request so that it can be made again. The first attempt starts
   * at halfClose, when the request is known (the stubs call start, request, sendMessage and
   * halfClose in one go). An attempt's headers and message reach the caller's listener only with
   * its close, so the caller sees exactly one attempt: the one that is not made again.
   *
   * <p>An attempt's ClientCall is used under {@code lock} (cancel, which is thread-safe, aside), so
   * that a caller's request never races the start of the second attempt: a ClientCall is not
   * thread-safe. The caller's listener is called outside it (unless a direct call executor runs
   * an attempt's callbacks inline, within one of these calls).
   */
  private static final class OnceMoreCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final MethodDescriptor<ReqT, RespT> method;
    private final CallOptions callOptions;
    private final Channel next;
    private final Object lock = new Object();
    private @Nullable Listener<RespT> listener;
    private @Nullable Metadata headers;
    private @Nullable ReqT request;
    private int requested;
    private boolean cancelled;
    private @Nullable ClientCall<ReqT, RespT> current;

    OnceMoreCall(MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      this.method = method;
      this.callOptions = callOptions;
      this.next = next;
    }

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
        startAttempt(true);
      }
    }

    @Override
    public void cancel(@Nullable String message, @Nullable Throwable cause) {
      ClientCall<ReqT, RespT> attempt;
      Listener<RespT> unstarted;
      synchronized (lock) {
        if (cancelled) {
          return;
        }
        // From here on no attempt starts, so current is the last one (if any).
        cancelled = true;
        attempt = current;
        unstarted = listener;
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
    private void startAttempt(boolean first) {
      if (cancelled || listener == null) {
        return;
      }
      ClientCall<ReqT, RespT> call = next.newCall(method, callOptions);
      current = call;
      // The channel writes its own entries into the headers it is given: each attempt gets a copy.
      Metadata h = new Metadata();
      if (headers != null) {
        h.merge(headers);
      }
      call.start(new AttemptListener(first), h);
      if (requested > 0) {
        call.request(requested);
      }
      if (request != null) {
        call.sendMessage(request);
      }
      call.halfClose();
    }

    /** Holds one attempt's answer until it is known whether the call is made again. */
    private final class AttemptListener extends Listener<RespT> {
      private final boolean first;
      private @Nullable Metadata answerHeaders;
      private @Nullable RespT message;

      AttemptListener(boolean first) {
        this.first = first;
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
          if (first && answerHeaders != null && status.getCode() == Status.Code.UNAVAILABLE && !cancelled) {
            // The answer had begun when the connection broke: make the call once more.
            startAttempt(false);
            return;
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
}
