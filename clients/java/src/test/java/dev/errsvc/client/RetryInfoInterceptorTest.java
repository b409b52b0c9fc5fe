package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import dev.errsvc.v1.Classification;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import dev.errsvc.v1.TranslationServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The RetryInfo interceptor and translateAll's pacing against an in-process fake errsvc (no server needed). */
class RetryInfoInterceptorTest {
  /** Fails its first `failures` calls with `code` and a RetryInfo of `delay`, then answers. */
  static final class Fake extends TranslationServiceGrpc.TranslationServiceImplBase {
    final AtomicInteger calls = new AtomicInteger();
    volatile int failures;
    volatile Code code = Code.RESOURCE_EXHAUSTED;
    volatile Duration delay = Duration.ofMillis(10);
    final AtomicInteger refusals = new AtomicInteger();

    @Override
    public void translate(TranslateRequest request, StreamObserver<TranslateResponse> out) {
      if (calls.incrementAndGet() <= failures) {
        out.onError(StatusProto.toStatusRuntimeException(refusal(code, delay)));
        return;
      }
      out.onNext(TranslateResponse.newBuilder().setClassification(Classification.newBuilder().setClass_("transient")).build());
      out.onCompleted();
    }

    @Override
    public StreamObserver<TranslateRequest> translateStream(StreamObserver<TranslateResponse> out) {
      return new StreamObserver<>() {
        int n;

        @Override
        public void onNext(TranslateRequest value) {
          // Refuses every third message over the stream's rate, at most `failures` times.
          if (++n % 3 == 0 && refusals.incrementAndGet() <= failures) {
            out.onNext(TranslateResponse.newBuilder().setError(refusal(Code.RESOURCE_EXHAUSTED, Duration.ofMillis(5))).build());
            return;
          }
          out.onNext(TranslateResponse.newBuilder()
              .setClassification(Classification.newBuilder().setClass_(value.getLabbyError().getKind())).build());
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          out.onCompleted();
        }
      };
    }
  }

  static com.google.rpc.Status refusal(Code code, Duration delay) {
    return com.google.rpc.Status.newBuilder()
        .setCode(code.getNumber())
        .setMessage("slow down")
        .addDetails(Any.pack(RetryInfo.newBuilder()
            .setRetryDelay(com.google.protobuf.Duration.newBuilder()
                .setSeconds(delay.getSeconds()).setNanos(delay.getNano()))
            .build()))
        .build();
  }

  Fake fake;
  Server server;
  ManagedChannel channel;
  ErrsvcClient client;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    fake = new Fake();
    server = InProcessServerBuilder.forName(name).directExecutor().addService(fake).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
    client = ErrsvcClient.of(ClientInterceptors.intercept(channel, new RetryInfoInterceptor(3, Duration.ofSeconds(1))));
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  static TranslateRequest req() {
    return TranslateRequest.getDefaultInstance();
  }

  @Test
  void retriesAfterTheDelayUntilItSucceeds() {
    fake.failures = 2;
    long start = System.nanoTime();
    assertEquals("transient", client.translate(req()).getClassification().getClass_());
    assertEquals(3, fake.calls.get());
    assertTrue(System.nanoTime() - start >= Duration.ofMillis(20).toNanos(), "did not wait the RetryInfo delay");
  }

  @Test
  void asyncRetriesToo() throws Exception {
    fake.failures = 1;
    fake.code = Code.UNAVAILABLE;
    assertEquals("transient", client.async().translate(req()).get(5, TimeUnit.SECONDS).getClassification().getClass_());
    assertEquals(2, fake.calls.get());
  }

  @Test
  void givesUpAfterTheRetriesWithTheServersStatus() {
    fake.failures = 100;
    ErrsvcException e = assertThrows(ErrsvcException.class, () -> client.translate(req()));
    assertEquals(4, fake.calls.get());
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getCode());
    assertEquals(ErrsvcException.Kind.SERVER, e.getKind());
    assertEquals(List.of(Duration.ofMillis(10).toMillis()),
        e.details(RetryInfo.class).stream().map(r -> r.getRetryDelay().getNanos() / 1_000_000L).toList());
  }

  @Test
  void aDelayOverTheCapFailsFast() {
    fake.failures = 1;
    fake.delay = Duration.ofSeconds(30);
    assertThrows(ErrsvcException.class, () -> client.translate(req()));
    assertEquals(1, fake.calls.get());
  }

  @Test
  void aDelayPastTheDeadlineFailsFast() {
    fake.failures = 1;
    fake.delay = Duration.ofMillis(500);
    ErrsvcException e = assertThrows(ErrsvcException.class,
        () -> client.withTimeout(Duration.ofMillis(200)).translate(req()));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getCode());
    assertEquals(1, fake.calls.get());
  }

  @Test
  void otherCodesAreNotRetried() {
    fake.failures = 1;
    fake.code = Code.INVALID_ARGUMENT;
    assertThrows(ErrsvcException.class, () -> client.translate(req()));
    assertEquals(1, fake.calls.get());
  }

  /** A cancel while the call waits out a RetryInfo delay closes it at once, and no attempt follows. */
  @Test
  void aCancelBetweenAttemptsClosesTheCall() throws Exception {
    fake.failures = 100;
    fake.delay = Duration.ofMillis(500);
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<TranslateRequest, TranslateResponse> call = ClientInterceptors
        .intercept(channel, new RetryInfoInterceptor(3, Duration.ofSeconds(1)))
        .newCall(TranslationServiceGrpc.getTranslateMethod(), CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        assertTrue(closed.complete(status), "closed twice");
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage(req());
    call.halfClose();
    Thread.sleep(100);
    call.cancel("enough", null);
    Status status = closed.get(100, TimeUnit.MILLISECONDS);
    assertEquals(Status.Code.CANCELLED, status.getCode());
    assertEquals("enough", status.getDescription());
    Thread.sleep(600);
    assertEquals(1, fake.calls.get());
  }

  @Test
  void translateAllSendsRefusedItemsAgainInOrder() {
    fake.failures = 20;
    List<TranslateRequest> reqs = new java.util.ArrayList<>();
    for (int i = 0; i < 200; i++) {
      reqs.add(TranslateRequest.newBuilder().setLabbyError(dev.errsvc.v1.LabbyError.newBuilder().setKind("k" + i)).build());
    }
    List<TranslateResponse> out = client.translateAll(reqs);
    assertEquals(200, out.size());
    for (int i = 0; i < 200; i++) {
      assertEquals("k" + i, out.get(i).getClassification().getClass_(), "answer " + i);
    }
    assertTrue(fake.refusals.get() >= 20, "the fake refused nothing");
  }
}
