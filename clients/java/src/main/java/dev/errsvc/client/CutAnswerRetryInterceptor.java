package dev.errsvc.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

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

  /** A unary call made once more when its first attempt's answer was cut. */
  private static final class OnceMoreCall<ReqT, RespT> extends ReplayableUnaryCall<ReqT, RespT> {
    OnceMoreCall(MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      super(method, callOptions, next);
    }

    @Override
    Verdict afterAttempt(int attempt, boolean answerBegan, Status status, Metadata trailers) {
      if (attempt == 1 && answerBegan && status.getCode() == Status.Code.UNAVAILABLE) {
        // The answer had begun when the connection broke: make the call once more.
        return Verdict.AGAIN;
      }
      return Verdict.DELIVER;
    }
  }
}
