package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import dev.errsvc.v1.ListVocabulariesResponse;
import dev.errsvc.v1.OptionsProto;
import dev.errsvc.v1.Term;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import dev.errsvc.v1.Vocabulary;
import dev.errsvc.v1.VocabularyProto;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Every golden vector against the live errsvc over gRPC: unary (blocking and async), batch and stream. */
class GoldenGrpcTest {
  /** The items of one TranslateBatch in the tests: a server bounds the items of one batch. */
  static final int BATCH_SIZE = 100;

  static ErrsvcClient client;

  @BeforeAll
  static void connect() {
    client = ErrsvcClient.builder(Vectors.grpcAddr()).timeout(Duration.ofSeconds(30)).build();
  }

  @AfterAll
  static void close() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void enoughVectors() {
    assertTrue(Vectors.all().size() >= Vectors.MIN_VECTORS);
    assertTrue(Vectors.all().stream().anyMatch(Vectors.Vector::malformed), "no malformed vectors");
  }

  @TestFactory
  Stream<DynamicTest> translate() {
    return Vectors.all().stream().map(v -> dynamicTest(v.name(), () -> {
      if (v.malformed()) {
        ErrsvcException e = assertThrows(ErrsvcException.class, () -> client.translate(v.request()));
        assertEquals(ErrsvcException.Kind.SERVER, e.getKind());
        Vectors.checkMalformed(v, e);
        return;
      }
      Vectors.assertSameMessage(v.want(), client.translate(v.request()), "response");
    }));
  }

  @TestFactory
  Stream<DynamicTest> translateAsync() {
    List<Vectors.Vector> vs = Vectors.all();
    ErrsvcAsyncClient async = client.async();
    // Every call in flight at once, then each checked.
    List<CompletableFuture<TranslateResponse>> futures = new ArrayList<>();
    for (Vectors.Vector v : vs) {
      futures.add(async.translate(v.request()));
    }
    return java.util.stream.IntStream.range(0, vs.size()).mapToObj(i -> dynamicTest(vs.get(i).name(), () -> {
      Vectors.Vector v = vs.get(i);
      if (v.malformed()) {
        CompletionException e = assertThrows(CompletionException.class, () -> futures.get(i).join());
        Vectors.checkMalformed(v, (ErrsvcException) e.getCause());
        return;
      }
      Vectors.assertSameMessage(v.want(), futures.get(i).get(30, TimeUnit.SECONDS), "response");
    }));
  }

  @TestFactory
  Stream<DynamicNode> translateBatch() {
    List<Vectors.Vector> vs = Vectors.all();
    List<DynamicNode> out = new ArrayList<>();
    for (int start = 0; start < vs.size(); start += BATCH_SIZE) {
      List<Vectors.Vector> chunk = vs.subList(start, Math.min(start + BATCH_SIZE, vs.size()));
      List<TranslateResponse> resps = client.translateBatch(chunk.stream().map(Vectors.Vector::request).toList());
      assertEquals(chunk.size(), resps.size(), "responses for requests");
      for (int i = 0; i < chunk.size(); i++) {
        Vectors.Vector v = chunk.get(i);
        TranslateResponse got = resps.get(i);
        out.add(dynamicTest(v.name(), () -> Vectors.checkItem(v, got)));
      }
    }
    return out.stream();
  }

  @TestFactory
  Stream<DynamicTest> translateAll() {
    // Every vector over one stream: more than a stream may send at once, so a live server refuses
    // some over its rate and translateAll sends them again.
    List<Vectors.Vector> vs = Vectors.all();
    List<TranslateResponse> resps = client.translateAll(vs.stream().map(Vectors.Vector::request).toList());
    assertEquals(vs.size(), resps.size());
    return java.util.stream.IntStream.range(0, vs.size())
        .mapToObj(i -> dynamicTest(vs.get(i).name(), () -> Vectors.checkItem(vs.get(i), resps.get(i))));
  }

  @Test
  void streamSendReceiveInLockStep() {
    List<Vectors.Vector> some = Vectors.all().subList(0, 10);
    try (TranslateStream s = client.openStream(Duration.ofSeconds(60))) {
      for (Vectors.Vector v : some) {
        s.send(v.request());
        TranslateResponse resp = s.receive();
        assertNotNull(resp, "stream ended early");
        Vectors.checkItem(v, resp);
      }
      s.closeSend();
      assertNull(s.receive(), "an answer after closeSend");
      assertTrue(s.ended());
      ErrsvcException e = assertThrows(ErrsvcException.class, () -> s.send(some.get(0).request()));
      assertEquals(Status.Code.FAILED_PRECONDITION, e.getCode());
    }
  }

  @Test
  void asyncStreamObservers() throws Exception {
    List<Vectors.Vector> some = Vectors.all().subList(0, 20);
    List<TranslateResponse> got = new ArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<TranslateRequest> req = client.async().translateStream(new StreamObserver<>() {
      @Override
      public void onNext(TranslateResponse value) {
        synchronized (got) {
          got.add(value);
        }
      }

      @Override
      public void onError(Throwable t) {
        done.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        done.complete(null);
      }
    });
    for (Vectors.Vector v : some) {
      req.onNext(v.request());
    }
    req.onCompleted();
    done.get(60, TimeUnit.SECONDS);
    assertEquals(some.size(), got.size());
    for (int i = 0; i < some.size(); i++) {
      Vectors.checkItem(some.get(i), got.get(i));
    }
  }

  @Test
  void listVocabulariesMatchesTheContract() throws Exception {
    ListVocabulariesResponse got = client.listVocabularies();
    assertEquals(new java.util.TreeMap<>(vocabularyTerms()), servedTerms(got), "vocabularies differ from the contract's enum values");
    assertEquals(servedTerms(got), servedTerms(client.async().listVocabularies().get(30, TimeUnit.SECONDS)));
    // Wire.java holds the same terms.
    for (Map.Entry<String, List<String>> e : servedTerms(got).entrySet()) {
      assertEquals(new java.util.HashSet<>(e.getValue()), Wire.VOCABULARIES.get(e.getKey()), e.getKey());
    }
  }

  @Test
  void deadlineIsAnErrsvcException() {
    ErrsvcException e = assertThrows(ErrsvcException.class,
        () -> client.withTimeout(Duration.ofNanos(1)).translate(Vectors.all().get(0).request()));
    assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getCode());
    assertEquals(ErrsvcException.Kind.TRANSPORT, e.getKind());
  }

  @Test
  void emptyRequestNamesSource() {
    ErrsvcException e = assertThrows(ErrsvcException.class, () -> client.translate(TranslateRequest.getDefaultInstance()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getCode());
    assertEquals(List.of("source"), e.fields());
    assertEquals(Status.Code.INVALID_ARGUMENT, Status.fromThrowable(e.toStatusRuntimeException()).getCode());
  }

  @Test
  void noServerIsTransport() {
    try (ErrsvcClient c = ErrsvcClient.builder("127.0.0.1:1").retry(1, Duration.ofMillis(1), Duration.ofMillis(1))
        .timeout(Duration.ofSeconds(5)).build()) {
      ErrsvcException e = assertThrows(ErrsvcException.class, () -> c.translate(Vectors.all().get(0).request()));
      assertEquals(Status.Code.UNAVAILABLE, e.getCode());
      assertEquals(ErrsvcException.Kind.TRANSPORT, e.getKind());
    }
  }

  /** Every vocabulary enum of the contract, read from its descriptor: enum name to wire spellings, in order. */
  static Map<String, List<String>> vocabularyTerms() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (EnumDescriptor ed : VocabularyProto.getDescriptor().getEnumTypes()) {
      List<String> terms = new ArrayList<>();
      for (EnumValueDescriptor vd : ed.getValues()) {
        if (vd.getNumber() != 0) {
          terms.add(vd.getOptions().getExtension(OptionsProto.wire));
        }
      }
      out.put(ed.getName(), terms);
    }
    return out;
  }

  static Map<String, List<String>> servedTerms(ListVocabulariesResponse resp) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Vocabulary v : resp.getVocabulariesList()) {
      out.put(v.getName(), v.getTermsList().stream().map(Term::getTerm).toList());
    }
    // Order of vocabularies aside.
    return new java.util.TreeMap<>(out);
  }
}
