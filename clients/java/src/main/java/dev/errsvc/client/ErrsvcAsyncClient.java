package dev.errsvc.client;

import dev.errsvc.v1.ListVocabulariesRequest;
import dev.errsvc.v1.ListVocabulariesResponse;
import dev.errsvc.v1.TranslateBatchRequest;
import dev.errsvc.v1.TranslateBatchResponse;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import dev.errsvc.v1.TranslationServiceGrpc;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The {@code CompletableFuture} face of {@link ErrsvcClient}, on the same channel ({@link
 * ErrsvcClient#async()}, {@link ErrsvcClient.Builder#buildAsync()}). A failed call completes its
 * future exceptionally with {@link ErrsvcException}; cancelling the future cancels the call.
 *
 * <pre>{@code
 * client.async().translate(request).thenAccept(resp -> ...);
 * }</pre>
 */
public final class ErrsvcAsyncClient implements AutoCloseable {
  private final ErrsvcClient client;

  ErrsvcAsyncClient(ErrsvcClient client) {
    this.client = client;
  }

  /** The blocking face of this client, on the same channel. */
  public ErrsvcClient blocking() {
    return client;
  }

  /** The same client with another deadline per unary call (null: none). */
  public ErrsvcAsyncClient withTimeout(@Nullable Duration timeout) {
    return new ErrsvcAsyncClient(client.withTimeout(timeout));
  }

  private TranslationServiceGrpc.TranslationServiceStub stub() {
    TranslationServiceGrpc.TranslationServiceStub s = TranslationServiceGrpc.newStub(client.channel);
    return client.timeout == null ? s : s.withDeadlineAfter(client.timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** {@link ErrsvcClient#translate}, without blocking. */
  public CompletableFuture<TranslateResponse> translate(TranslateRequest request) {
    return unary((req, obs) -> stub().translate(req, obs), request);
  }

  /** {@link ErrsvcClient#translateBatch}, without blocking. */
  public CompletableFuture<List<TranslateResponse>> translateBatch(List<TranslateRequest> requests) {
    CompletableFuture<TranslateBatchResponse> f = unary(
        (req, obs) -> stub().translateBatch(req, obs), TranslateBatchRequest.newBuilder().addAllRequests(requests).build());
    return f.thenApply(TranslateBatchResponse::getResponsesList);
  }

  /** {@link ErrsvcClient#listVocabularies}, without blocking. */
  public CompletableFuture<ListVocabulariesResponse> listVocabularies() {
    return unary((req, obs) -> stub().listVocabularies(req, obs), ListVocabulariesRequest.getDefaultInstance());
  }

  /**
   * TranslateStream with observers: the answers (each in the order of the requests) go to
   * responses, whose onError gets an {@link ErrsvcException}; send requests to the returned
   * observer and call its onCompleted when done. No deadline: cancel it through the returned
   * observer's onError.
   */
  public StreamObserver<TranslateRequest> translateStream(StreamObserver<TranslateResponse> responses) {
    return TranslationServiceGrpc.newStub(client.channel).translateStream(new StreamObserver<>() {
      @Override
      public void onNext(TranslateResponse value) {
        responses.onNext(value);
      }

      @Override
      public void onError(Throwable t) {
        responses.onError(ErrsvcException.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        responses.onCompleted();
      }
    });
  }

  /** {@link ErrsvcClient#translateAll}, on the common pool. */
  public CompletableFuture<List<TranslateResponse>> translateAll(List<TranslateRequest> requests) {
    return translateAll(requests, ForkJoinPool.commonPool());
  }

  /** {@link ErrsvcClient#translateAll}, run on executor. */
  public CompletableFuture<List<TranslateResponse>> translateAll(List<TranslateRequest> requests, Executor executor) {
    return CompletableFuture.supplyAsync(() -> client.translateAll(requests), executor);
  }

  private static <Req, Resp> CompletableFuture<Resp> unary(
      BiConsumer<Req, StreamObserver<Resp>> call, Req request) {
    CompletableFuture<Resp> f = new CompletableFuture<>();
    try {
      call.accept(request, new ClientResponseObserver<Req, Resp>() {
        @Override
        public void beforeStart(ClientCallStreamObserver<Req> requestStream) {
          f.whenComplete((v, t) -> {
            if (f.isCancelled()) {
              requestStream.cancel("future cancelled", null);
            }
          });
        }

        @Override
        public void onNext(Resp value) {
          f.complete(value);
        }

        @Override
        public void onError(Throwable t) {
          f.completeExceptionally(ErrsvcException.fromThrowable(t));
        }

        @Override
        public void onCompleted() {
          if (!f.isDone()) {
            f.completeExceptionally(ErrsvcException.of(io.grpc.Status.Code.INTERNAL, "no response",
                ErrsvcException.Kind.RESPONSE, null));
          }
        }
      });
    } catch (RuntimeException e) {
      f.completeExceptionally(ErrsvcClient.failure(e));
    }
    return f;
  }

  /** Closes the underlying client's channel (when it made it). */
  @Override
  public void close() {
    client.close();
  }
}
