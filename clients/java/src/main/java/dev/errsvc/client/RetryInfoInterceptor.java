package dev.errsvc.client;

import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A grpc-java {@link ClientInterceptor} that makes a unary call again as errsvc asks: after an
 * UNAVAILABLE, RESOURCE_EXHAUSTED or ABORTED error that carries a {@code google.rpc.RetryInfo}
 * (AIP-194: the request may succeed unchanged later), it waits the {@code retry_delay} and makes
 * the call again, at most {@code retries} more times and never past the call's deadline. A delay
 * over {@code maxDelay} is not shortened: the error is returned at once (fail fast, as {@link
 * Decide#retryAfter} and the other SDKs do), since retrying sooner than the server asked only earns
 * another refusal.
 *
 * <p>It sits outside the channel's service-config retries, which handle UNAVAILABLE without
 * RetryInfo (a connection refused, a server restarting). Streaming calls pass through untouched.
 * {@link ErrsvcClient} installs one (the Go SDK's {@code WithRetryInfo} defaults: 3 retries, 5 s);
 * it can be put on any channel with {@link io.grpc.ClientInterceptors#intercept}.
 */
public final class RetryInfoInterceptor implements ClientInterceptor {
  /** How many more times a call is made after an error carrying RetryInfo, by default. */
  public static final int DEFAULT_RETRIES = 3;
  /** The longest wait a server's RetryInfo may ask for by default; a longer one fails at once. */
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(5);

  /** The codes after which a server's RetryInfo is honoured. */
  static final Set<Status.Code> RETRY_INFO_CODES =
      EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED, Status.Code.ABORTED);

  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "errsvc-retry-info");
    t.setDaemon(true);
    return t;
  });

  private final int retries;
  private final Duration maxDelay;

  /** With {@link #DEFAULT_RETRIES} and {@link #DEFAULT_MAX_DELAY}. */
  public RetryInfoInterceptor() {
    this(DEFAULT_RETRIES, DEFAULT_MAX_DELAY);
  }

  /**
   * @param retries how many more times a call may be made (0 turns retries off)
   * @param maxDelay the longest retry_delay honoured
   */
  public RetryInfoInterceptor(int retries, Duration maxDelay) {
    if (retries < 0 || maxDelay.isNegative()) {
      throw new IllegalArgumentException("retries and maxDelay must not be negative");
    }
    this.retries = retries;
    this.maxDelay = maxDelay;
  }

  /**
   * The wait a failed call's google.rpc.RetryInfo asks for (negative reads as 0), or null when the
   * failure is not one to retry unchanged or carries no RetryInfo.
   */
  public static @Nullable Duration retryDelay(Status status, @Nullable Metadata trailers) {
    if (!RETRY_INFO_CODES.contains(status.getCode())) {
      return null;
    }
    com.google.rpc.Status st = StatusProto.fromStatusAndTrailers(status, trailers);
    if (st == null) {
      return null;
    }
    for (RetryInfo ri : ErrsvcException.unpack(st, RetryInfo.class)) {
      Duration d = Duration.ofSeconds(ri.getRetryDelay().getSeconds(), ri.getRetryDelay().getNanos());
      return d.isNegative() ? Duration.ZERO : d;
    }
    return null;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    if (retries == 0 || method.getType() != MethodDescriptor.MethodType.UNARY) {
      return next.newCall(method, callOptions);
    }
    return new RetryingCall<>(method, callOptions, next);
  }

  /** A unary call made again, after the wait its error's RetryInfo asks for, while that fits. */
  private final class RetryingCall<ReqT, RespT> extends ReplayableUnaryCall<ReqT, RespT> {
    RetryingCall(MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      super(method, callOptions, next);
    }

    @Override
    Verdict afterAttempt(int attempt, boolean answerBegan, Status status, Metadata trailers) {
      if (status.isOk() || attempt > retries) {
        return Verdict.DELIVER;
      }
      Duration delay = retryDelay(status, trailers);
      Deadline deadline = callOptions.getDeadline();
      boolean fits = delay != null && delay.compareTo(maxDelay) <= 0
          && (deadline == null || deadline.timeRemaining(TimeUnit.NANOSECONDS) > delay.toNanos());
      if (fits) {
        // Waiting would not outlive the call: make it again after the delay.
        return Verdict.againAfter(delay, TIMER);
      }
      return Verdict.DELIVER;
    }
  }
}
