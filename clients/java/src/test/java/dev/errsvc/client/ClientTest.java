package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.errsvc.v1.Classification;
import dev.errsvc.v1.LabbyError;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import dev.errsvc.v1.TranslationServiceGrpc;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The clients' options and failures against local fakes (no errsvc needed): TLS, metadata, error kinds. */
class ClientTest {
  static final TranslateRequest RATE_LIMITED = TranslateRequest.newBuilder()
      .setLabbyError(LabbyError.newBuilder().setKind("rate_limited").setMessage("slow down")).build();

  @TempDir
  static Path certDir;

  static Map<String, Path> certs;

  static void openssl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(certDir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
  }

  /** A CA, and a server and a client certificate it signs (P-256, for 127.0.0.1), made with openssl. */
  @BeforeAll
  static void makeCerts() throws Exception {
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
        "-out", "ca.pem", "-days", "1", "-subj", "/CN=errsvc test CA");
    Files.writeString(certDir.resolve("ext"), "subjectAltName=IP:127.0.0.1\n");
    for (String who : List.of("srv", "cli")) {
      openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", who + ".key",
          "-out", who + ".csr", "-subj", "/CN=" + who);
      openssl("x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
          "-out", who + ".pem", "-days", "1", "-extfile", "ext");
    }
    certs = Map.of("ca", certDir.resolve("ca.pem"), "srv.pem", certDir.resolve("srv.pem"),
        "srv.key", certDir.resolve("srv.key"), "cli.pem", certDir.resolve("cli.pem"), "cli.key", certDir.resolve("cli.key"));
  }

  /** Answers every Translate with the class "transient" and records the metadata it got. */
  static final class Echo extends TranslationServiceGrpc.TranslationServiceImplBase {
    final List<Metadata> seen = new CopyOnWriteArrayList<>();

    @Override
    public void translate(TranslateRequest request, StreamObserver<TranslateResponse> out) {
      out.onNext(TranslateResponse.newBuilder().setClassification(Classification.newBuilder().setClass_("transient")).build());
      out.onCompleted();
    }
  }

  Server grpcServer;
  HttpServer httpServer;

  @AfterEach
  void stop() throws InterruptedException {
    if (grpcServer != null) {
      grpcServer.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (httpServer != null) {
      httpServer.stop(0);
    }
  }

  Echo startGrpc(boolean mtls) throws IOException {
    Echo echo = new Echo();
    ServerInterceptor record = new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        echo.seen.add(headers);
        return next.startCall(call, headers);
      }
    };
    var creds = mtls
        ? TlsServerCredentials.newBuilder().keyManager(certs.get("srv.pem").toFile(), certs.get("srv.key").toFile())
            .trustManager(certs.get("ca").toFile()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE).build()
        : io.grpc.InsecureServerCredentials.create();
    grpcServer = Grpc.newServerBuilderForPort(0, creds).addService(ServerInterceptors.intercept(echo, record)).build().start();
    return echo;
  }

  @Test
  void grpcMutualTls() throws IOException {
    startGrpc(true);
    String target = "127.0.0.1:" + grpcServer.getPort();
    try (ErrsvcClient c = ErrsvcClient.builder(target).trustCertificates(certs.get("ca"))
        .clientCertificate(certs.get("cli.pem"), certs.get("cli.key")).build()) {
      assertEquals("transient", c.translate(RATE_LIMITED).getClassification().getClass_());
    }
    // Without the CA the server is not trusted; without the client certificate it refuses.
    for (ErrsvcClient.Builder b : List.of(ErrsvcClient.builder(target).tls(true),
        ErrsvcClient.builder(target).trustCertificates(certs.get("ca")))) {
      try (ErrsvcClient c = b.retry(1, Duration.ofMillis(1), Duration.ofMillis(1)).timeout(Duration.ofSeconds(5)).build()) {
        ErrsvcException e = assertThrows(ErrsvcException.class, () -> c.translate(RATE_LIMITED));
        assertEquals(ErrsvcException.Kind.TRANSPORT, e.getKind(), e.toString());
      }
    }
  }

  @Test
  void grpcMetadataAndTimeout() throws Exception {
    Echo echo = startGrpc(false);
    try (ErrsvcClient c = ErrsvcClient.builder("127.0.0.1:" + grpcServer.getPort()).metadata("x-tenant", "a").build()) {
      c.translate(RATE_LIMITED);
      c.async().translate(RATE_LIMITED).get(5, TimeUnit.SECONDS);
      c.withTimeout(null).translate(RATE_LIMITED);
    }
    assertEquals(3, echo.seen.size());
    Metadata.Key<String> tenant = Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER);
    Metadata.Key<String> timeout = Metadata.Key.of("grpc-timeout", Metadata.ASCII_STRING_MARSHALLER);
    for (Metadata md : echo.seen) {
      assertEquals("a", md.get(tenant));
    }
    assertTrue(echo.seen.get(0).containsKey(timeout), "the default deadline was not sent");
    assertTrue(!echo.seen.get(2).containsKey(timeout), "withTimeout(null) still sent a deadline");
  }

  @Test
  void closedClientFails() throws IOException {
    startGrpc(false);
    ErrsvcClient c = ErrsvcClient.builder("127.0.0.1:" + grpcServer.getPort()).build();
    c.close();
    ErrsvcException e = assertThrows(ErrsvcException.class, () -> c.translate(RATE_LIMITED));
    assertEquals(Status.Code.UNAVAILABLE, e.getCode());
  }

  /** An HTTP fake: answers `body` with `status` and records the request headers. */
  static final class Fake {
    volatile int status = 200;
    volatile String body = "{}";
    final List<Map<String, String>> seen = new CopyOnWriteArrayList<>();

    void handle(HttpExchange ex) throws IOException {
      Map<String, String> h = new ConcurrentHashMap<>();
      ex.getRequestHeaders().forEach((k, v) -> h.put(k.toLowerCase(), v.get(0)));
      h.put("path", ex.getRequestURI().getPath());
      seen.add(h);
      ex.getRequestBody().readAllBytes();
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(status, b.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    }
  }

  Fake startHttp(boolean mtls) throws IOException {
    Fake fake = new Fake();
    if (mtls) {
      HttpsServer s = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      s.setHttpsConfigurator(new HttpsConfigurator(Tls.context(certs.get("ca"), certs.get("srv.pem"), certs.get("srv.key"))) {
        @Override
        public void configure(HttpsParameters params) {
          SSLParameters p = getSSLContext().getDefaultSSLParameters();
          p.setNeedClientAuth(true);
          params.setSSLParameters(p);
        }
      });
      httpServer = s;
    } else {
      httpServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    }
    httpServer.createContext("/", fake::handle);
    httpServer.start();
    return fake;
  }

  @Test
  void restMutualTls() throws IOException {
    startHttp(true);
    String base = "https://127.0.0.1:" + httpServer.getAddress().getPort();
    ErrsvcRestClient ok = ErrsvcRestClient.builder(base).trustCertificates(certs.get("ca"))
        .clientCertificate(certs.get("cli.pem"), certs.get("cli.key")).build();
    assertEquals(TranslateResponse.getDefaultInstance(), ok.translate(RATE_LIMITED));
    for (ErrsvcRestClient c : List.of(ErrsvcRestClient.builder(base).build(),
        ErrsvcRestClient.builder(base).trustCertificates(certs.get("ca")).build())) {
      ErrsvcException e = assertThrows(ErrsvcException.class, () -> c.translate(RATE_LIMITED));
      assertEquals(ErrsvcException.Kind.TRANSPORT, e.getKind(), e.toString());
    }
  }

  @Test
  void restAnswersThatAreNotErrsvcs() throws IOException {
    Fake fake = startHttp(false);
    ErrsvcRestClient c = ErrsvcRestClient.builder("127.0.0.1:" + httpServer.getAddress().getPort())
        .header("x-tenant", "a").build();
    fake.body = "not json";
    assertEquals(ErrsvcException.Kind.RESPONSE, assertThrows(ErrsvcException.class, () -> c.translate(RATE_LIMITED)).getKind());
    fake.body = "[1, 2]";
    assertEquals(ErrsvcException.Kind.RESPONSE, assertThrows(ErrsvcException.class, () -> c.translate(RATE_LIMITED)).getKind());
    fake.body = "<html>bad gateway</html>";
    fake.status = 502;
    ErrsvcException e = assertThrows(ErrsvcException.class, () -> c.translate(RATE_LIMITED));
    assertEquals(502, e.getHttpStatus());
    assertEquals(ErrsvcException.Kind.SERVER, e.getKind());
    fake.body = "{\"code\": 8, \"message\": \"slow down\", \"details\": [{\"@type\": "
        + "\"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"2s\"}]}";
    fake.status = 429;
    e = assertThrows(ErrsvcException.class, () -> c.translate(RATE_LIMITED));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getCode());
    assertEquals("slow down", e.getStatusMessage());
    assertEquals(2, e.details(com.google.rpc.RetryInfo.class).get(0).getRetryDelay().getSeconds());
    // Inline members go back into additional_fields.
    fake.status = 200;
    fake.body = "{\"labby_error\": {\"kind\": \"rate_limited\", \"vendor_hint\": \"x\"}}";
    TranslateResponse resp = c.translate(RATE_LIMITED);
    assertEquals("x", resp.getLabbyError().getAdditionalFields().getFieldsOrThrow("vendor_hint").getStringValue());
    for (Map<String, String> h : fake.seen) {
      assertEquals("a", h.get("x-tenant"));
      assertEquals("/v1/translate", h.get("path"));
      assertEquals("application/json", h.get("content-type"));
    }
  }

  @Test
  void tlsFileErrorsAreUsageErrors(@TempDir Path tmp) {
    ErrsvcException e = assertThrows(ErrsvcException.class,
        () -> ErrsvcRestClient.builder("127.0.0.1:1").trustCertificates(tmp.resolve("missing.pem")).build());
    assertEquals(ErrsvcException.Kind.USAGE, e.getKind());
    e = assertThrows(ErrsvcException.class,
        () -> ErrsvcClient.builder("127.0.0.1:1").trustCertificates(tmp.resolve("missing.pem")).build());
    assertEquals(ErrsvcException.Kind.USAGE, e.getKind());
    assertEquals(Status.Code.FAILED_PRECONDITION, e.getCode());
  }

  @Test
  void serviceConfigRetriesUnavailable() {
    Map<String, ?> cfg = ErrsvcClient.serviceConfig(3, Duration.ofMillis(100), Duration.ofSeconds(2));
    Map<?, ?> method = (Map<?, ?>) ((List<?>) cfg.get("methodConfig")).get(0);
    assertEquals(List.of(Map.of("service", "errsvc.v1.TranslationService")), method.get("name"));
    Map<?, ?> policy = (Map<?, ?>) method.get("retryPolicy");
    assertEquals(3.0, policy.get("maxAttempts"));
    assertEquals("0.1s", policy.get("initialBackoff"));
    assertEquals("2s", policy.get("maxBackoff"));
    assertEquals(2.0, policy.get("backoffMultiplier"));
    assertEquals(List.of("UNAVAILABLE"), policy.get("retryableStatusCodes"));
    // Calls spread over every replica, with retries on and off.
    assertEquals(List.of(Map.of("round_robin", Map.of())), cfg.get("loadBalancingConfig"));
    assertEquals(Map.of("loadBalancingConfig", List.of(Map.of("round_robin", Map.of()))), ErrsvcClient.BALANCE_ONLY);
    // A backoff below the first one is raised to it; none at all is the default.
    Map<?, ?> p2 = (Map<?, ?>) ((Map<?, ?>) ((List<?>) ErrsvcClient.serviceConfig(2, Duration.ZERO, Duration.ZERO)
        .get("methodConfig")).get(0)).get("retryPolicy");
    assertEquals("0.1s", p2.get("initialBackoff"));
    assertEquals("0.1s", p2.get("maxBackoff"));
  }
}
