package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Every golden vector against the live errsvc over REST (the grpc-gateway paths, the gateway's JSON). */
class GoldenRestTest {
  static ErrsvcRestClient rest;

  @BeforeAll
  static void connect() {
    rest = ErrsvcRestClient.builder(Vectors.httpAddr()).timeout(Duration.ofSeconds(30)).build();
  }

  @TestFactory
  Stream<DynamicTest> translate() {
    return Vectors.all().stream().map(v -> dynamicTest(v.name(), () -> {
      if (v.malformed()) {
        ErrsvcException e = assertThrows(ErrsvcException.class, () -> rest.translate(v.request()));
        assertEquals(400, e.getHttpStatus());
        assertEquals(ErrsvcException.Kind.SERVER, e.getKind());
        Vectors.checkMalformed(v, e);
        return;
      }
      String body = rest.translateJson(v.request());
      // The body is the vector's JSON exactly (member order aside)...
      JsonElement got = JsonParser.parseString(body);
      if (!got.equals(v.responseJson())) {
        // ...up to the encoding of the Any details: the message must match. (REST writes
        // additional fields as members of their object.)
        TranslateResponse.Builder b = TranslateResponse.newBuilder();
        ProtoJson.merge(body, b);
        Vectors.assertSameMessage(v.want(), b, "REST response");
      }
    }));
  }

  @TestFactory
  Stream<DynamicTest> translateAsync() {
    List<Vectors.Vector> ok = Vectors.all().stream().filter(v -> !v.malformed()).limit(50).toList();
    return ok.stream().map(v -> dynamicTest(v.name(), () ->
        Vectors.assertSameMessage(v.want(), rest.translateAsync(v.request()).get(30, TimeUnit.SECONDS), "REST response")));
  }

  @TestFactory
  Stream<DynamicNode> translateBatch() {
    List<Vectors.Vector> vs = Vectors.all();
    List<DynamicNode> out = new ArrayList<>();
    for (int start = 0; start < vs.size(); start += GoldenGrpcTest.BATCH_SIZE) {
      List<Vectors.Vector> chunk = vs.subList(start, Math.min(start + GoldenGrpcTest.BATCH_SIZE, vs.size()));
      List<TranslateResponse> resps = rest.translateBatch(chunk.stream().map(Vectors.Vector::request).toList());
      assertEquals(chunk.size(), resps.size());
      for (int i = 0; i < chunk.size(); i++) {
        Vectors.Vector v = chunk.get(i);
        TranslateResponse got = resps.get(i);
        out.add(dynamicTest(v.name(), () -> Vectors.checkItem(v, got)));
      }
    }
    return out.stream();
  }

  @Test
  void listVocabularies() {
    assertEquals(new java.util.TreeMap<>(GoldenGrpcTest.vocabularyTerms()),
        GoldenGrpcTest.servedTerms(rest.listVocabularies()));
  }

  @Test
  void emptyRequestNamesSource() {
    ErrsvcException e = assertThrows(ErrsvcException.class, () -> rest.translate(TranslateRequest.getDefaultInstance()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getCode());
    assertEquals(400, e.getHttpStatus());
    assertTrue(e.fields().contains("source"), e.fields().toString());
  }

  @Test
  void noServerIsTransport() {
    ErrsvcRestClient none = ErrsvcRestClient.builder("127.0.0.1:1").timeout(Duration.ofSeconds(5)).build();
    ErrsvcException e = assertThrows(ErrsvcException.class, () -> none.translate(Vectors.all().get(0).request()));
    assertEquals(Status.Code.UNAVAILABLE, e.getCode());
    assertEquals(ErrsvcException.Kind.TRANSPORT, e.getKind());
  }
}
