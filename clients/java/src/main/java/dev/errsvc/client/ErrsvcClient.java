package dev.errsvc.client;

import dev.errsvc.v1.ListVocabulariesRequest;
import dev.errsvc.v1.ListVocabulariesResponse;
import dev.errsvc.v1.TranslateBatchRequest;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import dev.errsvc.v1.TranslationServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A blocking gRPC client of errsvc, the error translation service.
 *
 * <pre>{@code
 * try (ErrsvcClient client = ErrsvcClient.builder("127.0.0.1:9090").build()) {
 *   TranslateResponse resp = client.translate(request);
 * }
 * }</pre>
 *
 * <p>A malformed request fails with {@link ErrsvcException}, code INVALID_ARGUMENT and a {@code
 * google.rpc.BadRequest} naming the field ({@link ErrsvcException#fields()}); every other failure
 * throws it too. Unary calls get {@link #DEFAULT_TIMEOUT} unless the builder or {@link
 * #withTimeout} says otherwise; UNAVAILABLE is retried by the channel's retry policy (a call cut
 * mid-answer, which that policy cannot retry, is made once more), and an error carrying {@code
 * google.rpc.RetryInfo} by {@link RetryInfoInterceptor}. Calls are spread over every address the
 * target resolves to (round_robin). {@link #async()} is the same client with {@code
 * CompletableFuture} methods; {@link #openStream()} and {@link #translateAll} use TranslateStream.
 * Its methods are safe for concurrent use.
 */
public final class ErrsvcClient implements AutoCloseable {
  /** The deadline given to a unary call unless the builder sets another. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  /** The retry policy's attempts for UNAVAILABLE, the first included. */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  /** The retry policy's first backoff. */
  public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
  /** The retry policy's longest backoff. */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);

  /** How many requests {@link #translateAll} keeps unanswered at once. */
  public static final int STREAM_WINDOW = 64;
  /** How often {@link #translateAll} sends one request the stream's rate refused. */
  public static final int STREAM_ITEM_ATTEMPTS = 10;

  static final String SERVICE = TranslationServiceGrpc.SERVICE_NAME;

  private final @Nullable ManagedChannel owned;
  final Channel channel;
  final @Nullable Duration timeout;

  ErrsvcClient(@Nullable ManagedChannel owned, Channel channel, @Nullable Duration timeout) {
    this.owned = owned;
    this.channel = channel;
    this.timeout = timeout;
  }

  /**
   * A builder for the gRPC target ({@code "127.0.0.1:9090"}, {@code "dns:///errsvc:9090"}). Calls
   * are spread over every address the target resolves to (round_robin), so a fleet's replicas
   * behind one DNS name share the load.
   */
  public static Builder builder(String target) {
    return new Builder(target);
  }

  /**
   * A client over a channel the caller made and closes (its interceptors, credentials and retry
   * policy as they are; no RetryInfoInterceptor is added).
   */
  public static ErrsvcClient of(Channel channel) {
    return new ErrsvcClient(null, channel, DEFAULT_TIMEOUT);
  }

  /** Configures an {@link ErrsvcClient}. */
  public static final class Builder {
    private final String target;
    private boolean tls;
    private @Nullable Path caFile;
    private @Nullable Path certFile;
    private @Nullable Path keyFile;
    private @Nullable ChannelCredentials credentials;
    private @Nullable String authority;
    private @Nullable Duration timeout = DEFAULT_TIMEOUT;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private int retryInfoRetries = RetryInfoInterceptor.DEFAULT_RETRIES;
    private Duration retryInfoMaxDelay = RetryInfoInterceptor.DEFAULT_MAX_DELAY;
    private final Metadata metadata = new Metadata();
    private final List<ClientInterceptor> interceptors = new ArrayList<>();
    private final List<Consumer<ManagedChannelBuilder<?>>> customizers = new ArrayList<>();

    private Builder(String target) {
      this.target = target;
    }

    /** TLS with the system roots (the default is plaintext, for errsvc on loopback or behind a sidecar). */
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

    /** Presents a client certificate (PEM chain and PEM key) for mutual TLS (implies TLS). */
    public Builder clientCertificate(Path certFile, Path keyFile) {
      this.certFile = certFile;
      this.keyFile = keyFile;
      this.tls = true;
      return this;
    }

    /** Uses these channel credentials as they are; the TLS options are then ignored. */
    public Builder credentials(ChannelCredentials credentials) {
      this.credentials = credentials;
      return this;
    }

    /** Overrides the authority (the TLS server name) the channel asks for. */
    public Builder authority(String authority) {
      this.authority = authority;
      return this;
    }

    /** The deadline given to each unary call ({@link #DEFAULT_TIMEOUT}); null for none. Streams get none. */
    public Builder timeout(@Nullable Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * The channel's retry policy for UNAVAILABLE: at most maxAttempts attempts (the first
     * included), exponential backoff from initialBackoff up to maxBackoff. A unary call whose
     * connection broke after its answer began, which the policy cannot retry, is made once more.
     * maxAttempts below 2 turns both off. Every errsvc method is safe to retry: a translation has
     * no side effects.
     */
    public Builder retry(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
      this.maxAttempts = maxAttempts;
      this.initialBackoff = initialBackoff;
      this.maxBackoff = maxBackoff;
      return this;
    }

    /** Bounds the {@link RetryInfoInterceptor}: retries 0 turns it off. */
    public Builder retryInfo(int retries, Duration maxDelay) {
      this.retryInfoRetries = retries;
      this.retryInfoMaxDelay = maxDelay;
      return this;
    }

    /** A metadata entry sent with every call. */
    public Builder metadata(String key, String value) {
      metadata.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value);
      return this;
    }

    /** An interceptor of every call, run before the client's own. */
    public Builder intercept(ClientInterceptor interceptor) {
      interceptors.add(interceptor);
      return this;
    }

    /** Raw access to the channel builder (keepalive, executor, message size, ...), applied last. */
    public Builder customize(Consumer<ManagedChannelBuilder<?>> customizer) {
      customizers.add(customizer);
      return this;
    }

    private ChannelCredentials channelCredentials() {
      if (credentials != null) {
        return credentials;
      }
      if (!tls) {
        return InsecureChannelCredentials.create();
      }
      if ((certFile == null) != (keyFile == null)) {
        throw Tls.usage("certFile and keyFile go together", null);
      }
      try {
        TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
        if (caFile != null) {
          b.trustManager(caFile.toFile());
        }
        if (certFile != null && keyFile != null) {
          b.keyManager(certFile.toFile(), keyFile.toFile());
        }
        return b.build();
      } catch (IOException | IllegalArgumentException e) {
        throw Tls.usage("TLS files: " + e.getMessage(), e);
      }
    }

    /** The client, on a channel of its own that {@link #close()} shuts down. */
    public ErrsvcClient build() {
      ManagedChannelBuilder<?> b = Grpc.newChannelBuilder(target, channelCredentials());
      if (authority != null) {
        b.overrideAuthority(authority);
      }
      boolean retries = maxAttempts >= 2;
      if (retries) {
        b.defaultServiceConfig(serviceConfig(maxAttempts, initialBackoff, maxBackoff));
        b.enableRetry().maxRetryAttempts(maxAttempts);
      } else {
        b.defaultServiceConfig(BALANCE_ONLY);
        b.disableRetry();
      }
      customizers.forEach(c -> c.accept(b));
      ManagedChannel ch = b.build();
      // ClientInterceptors.intercept runs the last one first.
      List<ClientInterceptor> chain = new ArrayList<>();
      if (retries) {
        // Closest to the channel: once per attempt of the RetryInfo interceptor, with the
        // metadata the outer ones add.
        chain.add(new CutAnswerRetryInterceptor());
      }
      if (retryInfoRetries > 0) {
        chain.add(new RetryInfoInterceptor(retryInfoRetries, retryInfoMaxDelay));
      }
      if (metadata.keys().size() > 0) {
        chain.add(MetadataUtils.newAttachHeadersInterceptor(metadata));
      }
      List<ClientInterceptor> user = new ArrayList<>(interceptors);
      java.util.Collections.reverse(user);
      chain.addAll(user);
      return new ErrsvcClient(ch, ClientInterceptors.intercept(ch, chain), timeout);
    }

    /** {@link #build()}, seen as the {@code CompletableFuture} client. */
    public ErrsvcAsyncClient buildAsync() {
      return build().async();
    }
  }

  /**
   * The gRPC service config that retries UNAVAILABLE on every method of errsvc (all of them are
   * pure, hence safe to repeat), and balances calls with round_robin, as the Go and Python SDKs
   * set it.
   */
  static Map<String, ?> serviceConfig(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    if (initialBackoff.isNegative() || initialBackoff.isZero()) {
      initialBackoff = DEFAULT_INITIAL_BACKOFF;
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      maxBackoff = initialBackoff;
    }
    Map<String, Object> policy = Map.of(
        "maxAttempts", (double) maxAttempts,
        "initialBackoff", seconds(initialBackoff),
        "maxBackoff", seconds(maxBackoff),
        "backoffMultiplier", 2.0,
        "retryableStatusCodes", List.of("UNAVAILABLE"));
    Map<String, Object> method = Map.of("name", List.of(Map.of("service", SERVICE)), "retryPolicy", policy);
    return Map.of("loadBalancingConfig", ROUND_ROBIN, "methodConfig", List.of(method));
  }

  /**
   * round_robin spreads calls over every address the target resolves to (a fleet's replicas behind
   * dns:///), where gRPC's default, pick_first, sends them all to one.
   */
  static final List<Map<String, ?>> ROUND_ROBIN = List.of(Map.of("round_robin", Map.of()));

  /** The service config when retries are off. */
  static final Map<String, ?> BALANCE_ONLY = Map.of("loadBalancingConfig", ROUND_ROBIN);

  private static String seconds(Duration d) {
    return java.math.BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString() + "s";
  }

  /** The same client with another deadline per unary call (null: none), on the same channel. */
  public ErrsvcClient withTimeout(@Nullable Duration timeout) {
    return new ErrsvcClient(null, channel, timeout);
  }

  /** This client with {@code CompletableFuture} methods, on the same channel (close either one). */
  public ErrsvcAsyncClient async() {
    return new ErrsvcAsyncClient(this);
  }

  /** The channel the calls go through (with the client's interceptors). */
  public Channel channel() {
    return channel;
  }

  TranslationServiceGrpc.TranslationServiceBlockingStub blocking() {
    TranslationServiceGrpc.TranslationServiceBlockingStub s = TranslationServiceGrpc.newBlockingStub(channel);
    return timeout == null ? s : s.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  CallOptions unaryOptions() {
    return timeout == null ? CallOptions.DEFAULT : CallOptions.DEFAULT.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Translates one error into every requested vocabulary.
   *
   * @throws ErrsvcException INVALID_ARGUMENT naming the field for a malformed request; any failure
   */
  public TranslateResponse translate(TranslateRequest request) {
    try {
      return blocking().translate(request);
    } catch (StatusRuntimeException | IllegalStateException e) {
      throw failure(e);
    }
  }

  /**
   * Translates many errors in one call, answering in the same order. A malformed item does not
   * fail the call: its response carries its own {@code error} ({@link
   * ErrsvcException#fieldViolations(com.google.rpc.Status)}).
   */
  public List<TranslateResponse> translateBatch(List<TranslateRequest> requests) {
    try {
      return blocking().translateBatch(TranslateBatchRequest.newBuilder().addAllRequests(requests).build())
          .getResponsesList();
    } catch (StatusRuntimeException | IllegalStateException e) {
      throw failure(e);
    }
  }

  /** Every vocabulary, each term with its meaning, and the matrix rows. */
  public ListVocabulariesResponse listVocabularies() {
    try {
      return blocking().listVocabularies(ListVocabulariesRequest.getDefaultInstance());
    } catch (StatusRuntimeException | IllegalStateException e) {
      throw failure(e);
    }
  }

  /**
   * Opens a TranslateStream: send requests, receive each answer in order (a malformed request's
   * answer carries its own {@code error}). No deadline unless given; close it when done.
   */
  public TranslateStream openStream() {
    return new TranslateStream(channel, null);
  }

  /** {@link #openStream()} with a deadline for the whole stream. */
  public TranslateStream openStream(Duration deadline) {
    return new TranslateStream(channel, deadline);
  }

  /**
   * Translates every request over one TranslateStream, sending while it receives, and returns the
   * answers in the order of requests (a malformed request's answer carries its own {@code error},
   * as in a batch).
   *
   * <p>errsvc limits the messages per second of a stream: a message over the rate is answered with
   * RESOURCE_EXHAUSTED and a google.rpc.RetryInfo. translateAll then sends the refused request
   * again and from then on paces its sends by the delay the server asked for; a request refused
   * {@link #STREAM_ITEM_ATTEMPTS} times keeps the refusal as its answer. At most {@link
   * #STREAM_WINDOW} requests are unanswered at once.
   */
  public List<TranslateResponse> translateAll(List<TranslateRequest> requests) {
    return StreamPacer.translateAll(this, requests);
  }

  static ErrsvcException failure(RuntimeException e) {
    if (e instanceof IllegalStateException) {
      // grpc-java: a call on a channel that was shut down.
      return ErrsvcException.of(io.grpc.Status.Code.FAILED_PRECONDITION, String.valueOf(e.getMessage()),
          ErrsvcException.Kind.USAGE, e);
    }
    return ErrsvcException.fromThrowable(e);
  }

  /** Shuts the channel down (when this client made it) and waits up to 5 s for calls to end. */
  @Override
  public void close() {
    if (owned == null) {
      return;
    }
    owned.shutdown();
    try {
      if (!owned.awaitTermination(5, TimeUnit.SECONDS)) {
        owned.shutdownNow();
      }
    } catch (InterruptedException e) {
      owned.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
