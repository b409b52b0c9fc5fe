package dev.errsvc.client;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.errsvc.v1.ListVocabulariesResponse;
import dev.errsvc.v1.TranslateBatchRequest;
import dev.errsvc.v1.TranslateBatchResponse;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import io.grpc.Status;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * A client of errsvc's REST face (the grpc-gateway paths of the contract) on {@link
 * java.net.http.HttpClient}, with the same JSON mapping as the gateway ({@link ProtoJson}): {@code
 * POST /v1/translate}, {@code POST /v1/translate:batch}, {@code GET /v1/vocabularies}.
 *
 * <pre>{@code
 * ErrsvcRestClient rest = ErrsvcRestClient.builder("127.0.0.1:8080").build();
 * TranslateResponse resp = rest.translate(request);
 * }</pre>
 *
 * <p>Every failure throws {@link ErrsvcException}: an error answer carries the server's {@code
 * google.rpc.Status} and {@link ErrsvcException#getHttpStatus()}. Its methods are safe for
 * concurrent use; the connections are pooled by the HttpClient.
 */
public final class ErrsvcRestClient {
  /** The deadline of each call unless the builder sets another. */
  public static final Duration DEFAULT_TIMEOUT = ErrsvcClient.DEFAULT_TIMEOUT;

  private final HttpClient http;
  private final URI base;
  private final @Nullable Duration timeout;
  private final Map<String, String> headers;

  private ErrsvcRestClient(HttpClient http, URI base, @Nullable Duration timeout, Map<String, String> headers) {
    this.http = http;
    this.base = base;
    this.timeout = timeout;
    this.headers = headers;
  }

  /**
   * A builder for the REST address: {@code "127.0.0.1:8080"} (http, or https with {@link
   * Builder#tls}) or a full {@code "https://host:8443"}.
   */
  public static Builder builder(String httpAddress) {
    return new Builder(httpAddress);
  }

  /** Configures an {@link ErrsvcRestClient}. */
  public static final class Builder {
    private final String address;
    private boolean tls;
    private @Nullable Path caFile;
    private @Nullable Path certFile;
    private @Nullable Path keyFile;
    private @Nullable SSLContext sslContext;
    private @Nullable HttpClient httpClient;
    private @Nullable Duration timeout = DEFAULT_TIMEOUT;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private final Map<String, String> headers = new LinkedHashMap<>();

    private Builder(String address) {
      this.address = address;
    }

    /** https for an address without a scheme, trusting the system roots. */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /** Trusts the PEM certificates of caFile instead of the system roots (implies TLS). */
    public Builder trustCertificates(Path caFile) {
      this.caFile = caFile;
      this.tls = true;
      return this;
    }

    /** Presents a client certificate (PEM chain, PKCS#8 PEM key) for mutual TLS (implies TLS). */
    public Builder clientCertificate(Path certFile, Path keyFile) {
      this.certFile = certFile;
      this.keyFile = keyFile;
      this.tls = true;
      return this;
    }

    /** Uses this TLS context instead of one made from files. */
    public Builder sslContext(SSLContext sslContext) {
      this.sslContext = sslContext;
      this.tls = true;
      return this;
    }

    /** Uses this HttpClient as is (its TLS, proxy, executor); the TLS options are then ignored. */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = httpClient;
      return this;
    }

    /** The deadline of each call ({@link #DEFAULT_TIMEOUT}); null for none. */
    public Builder timeout(@Nullable Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** How long to wait for a connection (10 s). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /** A header sent with every call (as gRPC metadata is over gRPC). */
    public Builder header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    /** The client. TLS files are read here: a bad one throws {@link ErrsvcException} (USAGE). */
    public ErrsvcRestClient build() {
      String a = address.replaceAll("/+$", "");
      if (!a.contains("://")) {
        a = (tls ? "https://" : "http://") + a;
      }
      URI base;
      try {
        base = URI.create(a + "/");
      } catch (IllegalArgumentException e) {
        throw Tls.usage("not an HTTP address: " + address, e);
      }
      HttpClient http = httpClient;
      if (http == null) {
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connectTimeout);
        if (base.getScheme().equals("https")) {
          b.sslContext(sslContext != null ? sslContext : Tls.context(caFile, certFile, keyFile));
        }
        http = b.build();
      }
      return new ErrsvcRestClient(http, base, timeout, Map.copyOf(headers));
    }
  }

  /** The same client with another deadline per call (null: none), sharing its connections. */
  public ErrsvcRestClient withTimeout(@Nullable Duration timeout) {
    return new ErrsvcRestClient(http, base, timeout, headers);
  }

  /** POST /v1/translate: one error in, every requested vocabulary out. */
  public TranslateResponse translate(TranslateRequest request) {
    return parse(translateJson(request), TranslateResponse.newBuilder()).build();
  }

  /** {@link #translate}, without blocking. */
  public CompletableFuture<TranslateResponse> translateAsync(TranslateRequest request) {
    return sendAsync("POST", "v1/translate", ProtoJson.print(request))
        .thenApply(body -> parse(body, TranslateResponse.newBuilder()).build());
  }

  /**
   * POST /v1/translate: the response body as errsvc wrote it (JSON, proto field names, the members
   * of additional_fields inline).
   */
  public String translateJson(TranslateRequest request) {
    return send("POST", "v1/translate", ProtoJson.print(request));
  }

  /** POST /v1/translate:batch: many errors, answered in the same order; a bad item gets its own error. */
  public List<TranslateResponse> translateBatch(List<TranslateRequest> requests) {
    String body = ProtoJson.print(TranslateBatchRequest.newBuilder().addAllRequests(requests));
    return parse(send("POST", "v1/translate:batch", body), TranslateBatchResponse.newBuilder()).getResponsesList();
  }

  /** GET /v1/vocabularies: every vocabulary, each term with its meaning, and the matrix rows. */
  public ListVocabulariesResponse listVocabularies() {
    return parse(send("GET", "v1/vocabularies", null), ListVocabulariesResponse.newBuilder()).build();
  }

  private HttpRequest httpRequest(String method, String path, @Nullable String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path))
        .header("Accept", "application/json");
    headers.forEach(b::header);
    if (timeout != null) {
      b.timeout(timeout);
    }
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json");
      b.method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    }
    return b.build();
  }

  private String send(String method, String path, @Nullable String body) {
    HttpResponse<String> resp;
    try {
      resp = http.send(httpRequest(method, path, body), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw transport(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ErrsvcException.of(Status.Code.CANCELLED, "interrupted", ErrsvcException.Kind.TRANSPORT, e);
    }
    return answer(resp);
  }

  private CompletableFuture<String> sendAsync(String method, String path, @Nullable String body) {
    return http.sendAsync(httpRequest(method, path, body), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
        .handle((resp, err) -> {
          if (err != null) {
            Throwable t = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
            throw t instanceof IOException io ? transport(io) : ErrsvcException.fromThrowable(t);
          }
          return answer(resp);
        });
  }

  private static ErrsvcException transport(IOException e) {
    if (e instanceof HttpTimeoutException) {
      return ErrsvcException.of(Status.Code.DEADLINE_EXCEEDED, "REST call timed out: " + e.getMessage(),
          ErrsvcException.Kind.TRANSPORT, e);
    }
    return ErrsvcException.of(Status.Code.UNAVAILABLE, "REST call failed: " + e, ErrsvcException.Kind.TRANSPORT, e);
  }

  private static String answer(HttpResponse<String> resp) {
    if (resp.statusCode() >= 400) {
      throw fromHttpAnswer(resp.statusCode(), resp.body());
    }
    return resp.body();
  }

  /**
   * The exception for a REST answer with an error status; its body is a google.rpc.Status in JSON
   * when errsvc wrote it.
   */
  static ErrsvcException fromHttpAnswer(int httpStatus, String body) {
    com.google.rpc.Status st;
    try {
      st = ProtoJson.mergeLenient(body, com.google.rpc.Status.newBuilder()).build();
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      String text = body.length() > 1024 ? body.substring(0, 1024) : body;
      return ErrsvcException.ofStatus(
          com.google.rpc.Status.newBuilder()
              .setCode(ErrsvcException.codeFromHttp(httpStatus).value())
              .setMessage(text.isEmpty() ? "HTTP " + httpStatus : text)
              .build(),
          httpStatus, ErrsvcException.Kind.SERVER, e);
    }
    if (st.getCode() == 0) {
      st = st.toBuilder().setCode(ErrsvcException.codeFromHttp(httpStatus).value()).build();
    }
    return ErrsvcException.ofStatus(st, httpStatus, ErrsvcException.Kind.SERVER, null);
  }

  private static <B extends Message.Builder> B parse(String body, B builder) {
    try {
      return ProtoJson.merge(body, builder);
    } catch (InvalidProtocolBufferException e) {
      throw ErrsvcException.of(Status.Code.INTERNAL,
          "not a " + builder.getDescriptorForType().getName() + ": " + e.getMessage(), ErrsvcException.Kind.RESPONSE, e);
    }
  }
}
