package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.errsvc.v1.Classification;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import dev.errsvc.v1.TranslationServiceGrpc;
import io.grpc.EquivalentAddressGroup;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client against a fleet of replicas (local Netty servers, no errsvc needed): a replica that
 * crashes mid-answer, and calls spread over every replica the target resolves to.
 */
class FleetTest {
  static final TranslateRequest REQUEST = ClientTest.RATE_LIMITED;

  /** Answers every Translate with the class "transient" and counts the calls. */
  static final class Replica extends TranslationServiceGrpc.TranslationServiceImplBase {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public void translate(TranslateRequest request, StreamObserver<TranslateResponse> out) {
      calls.incrementAndGet();
      out.onNext(TranslateResponse.newBuilder().setClassification(Classification.newBuilder().setClass_("transient")).build());
      out.onCompleted();
    }
  }

  /**
   * Forwards every TCP connection to a server and can cut them all at once, as a replica's crash
   * does, while it goes on accepting new ones (the replica restarted behind the same address).
   */
  static final class CuttingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int backendPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    CuttingProxy(int backendPort) throws IOException {
      this.backendPort = backendPort;
      this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      daemon(this::accept);
    }

    int port() {
      return listener.getLocalPort();
    }

    private void accept() {
      while (!listener.isClosed()) {
        try {
          Socket client = listener.accept();
          Socket backend = new Socket(InetAddress.getLoopbackAddress(), backendPort);
          sockets.add(client);
          sockets.add(backend);
          daemon(() -> pump(client, backend));
          daemon(() -> pump(backend, client));
        } catch (IOException e) {
          // Closed, or the backend refused: the client sees a closed connection.
        }
      }
    }

    /** Copies from one socket to the other until either closes, then closes both. */
    private static void pump(Socket from, Socket to) {
      try {
        from.getInputStream().transferTo(to.getOutputStream());
      } catch (IOException e) {
        // Cut.
      }
      closeQuietly(from);
      closeQuietly(to);
    }

    void cut() {
      // One by one: a connection made meanwhile (the client reconnects at once) stays open.
      for (Socket s : sockets) {
        closeQuietly(s);
        sockets.remove(s);
      }
    }

    @Override
    public void close() {
      closeQuietly(listener);
      cut();
    }

    private static void closeQuietly(java.io.Closeable c) {
      try {
        c.close();
      } catch (IOException e) {
        // Already closed.
      }
    }

    private static void daemon(Runnable r) {
      Thread t = new Thread(r, "fleet-test-proxy");
      t.setDaemon(true);
      t.start();
    }
  }

  /**
   * A replica behind a {@link CuttingProxy} that, for its next {@code callsToCut} calls, sends the
   * response headers and then crashes (cuts every connection) before the answer's message and
   * trailers: the failure gRPC's retry policy cannot cover. Other calls are answered.
   */
  static final class MidAnswerCrash implements AutoCloseable {
    final Replica replica = new Replica();
    /** Every call the server saw, the cut ones included. */
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger callsToCut = new AtomicInteger();
    final Server server;
    final CuttingProxy proxy;

    MidAnswerCrash() throws IOException {
      ServerInterceptor crash = new ServerInterceptor() {
        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
          calls.incrementAndGet();
          if (callsToCut.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            return next.startCall(call, headers);
          }
          // Flushed at once (see flushedHeaders); give them the time to reach the client.
          call.sendHeaders(new Metadata());
          sleep(Duration.ofMillis(50));
          proxy.cut();
          return new ServerCall.Listener<>() {};
        }
      };
      ServerServiceDefinition translate = ServerServiceDefinition.builder(TranslationServiceGrpc.SERVICE_NAME)
          .addMethod(flushedHeaders(TranslationServiceGrpc.getTranslateMethod()),
              ServerCalls.asyncServerStreamingCall(replica::translate))
          .build();
      server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
          .addService(ServerInterceptors.intercept(translate, crash)).build().start();
      proxy = new CuttingProxy(server.getPort());
    }

    /**
     * The method as a server-streaming one, the same call on the wire: grpc-java's server flushes a
     * unary call's response headers only with the rest of its answer, a streaming call's at once.
     */
    static <Q, A> MethodDescriptor<Q, A> flushedHeaders(MethodDescriptor<Q, A> unary) {
      return unary.toBuilder().setType(MethodDescriptor.MethodType.SERVER_STREAMING).build();
    }

    String target() {
      return "127.0.0.1:" + proxy.port();
    }

    @Override
    public void close() throws InterruptedException {
      proxy.close();
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : cleanup) {
      c.close();
    }
  }

  <T extends AutoCloseable> T closeLater(T c) {
    cleanup.add(0, c);
    return c;
  }

  /**
   * A replica that crashes after a call's answer began: the call fails UNAVAILABLE and the retry
   * policy cannot retry it (gRFC A6 commits a call at its headers). The client makes it once more,
   * since a translation has no side effects, blocking or not.
   */
  @Test
  void aCallCutMidAnswerIsMadeAgain() throws Exception {
    MidAnswerCrash fleet = closeLater(new MidAnswerCrash());
    ErrsvcClient client = closeLater(ErrsvcClient.builder(fleet.target()).build());

    fleet.callsToCut.set(1);
    assertEquals("transient", client.translate(REQUEST).getClassification().getClass_());
    assertEquals(2, fleet.calls.get(), "calls the server saw");
    assertEquals(1, fleet.replica.calls.get(), "calls answered");

    fleet.callsToCut.set(1);
    assertEquals("transient",
        client.async().translate(REQUEST).get(5, TimeUnit.SECONDS).getClassification().getClass_());
    assertEquals(4, fleet.calls.get(), "calls the server saw");
  }

  /** Once more, not more: the second call's result stands. */
  @Test
  void aCallCutTwiceFails() throws Exception {
    MidAnswerCrash fleet = closeLater(new MidAnswerCrash());
    ErrsvcClient client = closeLater(ErrsvcClient.builder(fleet.target()).build());

    fleet.callsToCut.set(2);
    ErrsvcException e = assertThrows(ErrsvcException.class, () -> client.translate(REQUEST));
    assertEquals(Status.Code.UNAVAILABLE, e.getCode(), e.toString());
    assertEquals(2, fleet.calls.get(), "calls the server saw");
  }

  /** With retries off the caller sees the cut call's UNAVAILABLE, and the call is made once. */
  @Test
  void aCallCutMidAnswerFailsWithRetriesOff() throws Exception {
    MidAnswerCrash fleet = closeLater(new MidAnswerCrash());
    ErrsvcClient client = closeLater(ErrsvcClient.builder(fleet.target())
        .retry(1, ErrsvcClient.DEFAULT_INITIAL_BACKOFF, ErrsvcClient.DEFAULT_MAX_BACKOFF).build());

    fleet.callsToCut.set(1);
    ErrsvcException e = assertThrows(ErrsvcException.class, () -> client.translate(REQUEST));
    assertEquals(Status.Code.UNAVAILABLE, e.getCode(), e.toString());
    assertEquals(1, fleet.calls.get(), "calls the server saw");
  }

  /** Resolves {@code <scheme>:///<anything>} to the given addresses, as DNS does a fleet's name. */
  static final class StaticResolverProvider extends NameResolverProvider {
    private static final AtomicInteger SCHEMES = new AtomicInteger();
    final String scheme = "errsvc-fleet-test-" + SCHEMES.incrementAndGet();
    private final List<EquivalentAddressGroup> addresses;

    StaticResolverProvider(List<EquivalentAddressGroup> addresses) {
      this.addresses = addresses;
    }

    @Override
    protected boolean isAvailable() {
      return true;
    }

    @Override
    protected int priority() {
      return 5;
    }

    @Override
    public String getDefaultScheme() {
      return scheme;
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
      if (!scheme.equals(targetUri.getScheme())) {
        return null;
      }
      return new NameResolver() {
        @Override
        public String getServiceAuthority() {
          return "errsvc";
        }

        @Override
        public void start(Listener2 listener) {
          listener.onResult(ResolutionResult.newBuilder().setAddresses(addresses).build());
        }

        @Override
        public void shutdown() {}
      };
    }
  }

  /**
   * A target that resolves to several replicas gets its calls spread over all of them
   * (round_robin; pick_first would send all 1,000 to one), with retries on and off.
   */
  @ParameterizedTest(name = "maxAttempts {0}")
  @ValueSource(ints = {ErrsvcClient.DEFAULT_MAX_ATTEMPTS, 1})
  void callsSpreadOverReplicas(int maxAttempts) throws Exception {
    List<Replica> replicas = List.of(new Replica(), new Replica(), new Replica());
    List<EquivalentAddressGroup> addresses = new ArrayList<>();
    for (Replica r : replicas) {
      Server s = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).addService(r).build().start();
      closeLater(() -> s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
      addresses.add(new EquivalentAddressGroup(new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getPort())));
    }
    StaticResolverProvider resolver = new StaticResolverProvider(addresses);
    NameResolverRegistry.getDefaultRegistry().register(resolver);
    closeLater(() -> NameResolverRegistry.getDefaultRegistry().deregister(resolver));
    ErrsvcClient client = closeLater(ErrsvcClient.builder(resolver.scheme + ":///errsvc")
        .retry(maxAttempts, ErrsvcClient.DEFAULT_INITIAL_BACKOFF, ErrsvcClient.DEFAULT_MAX_BACKOFF).build());

    for (int i = 0; i < 1000; i++) {
      client.translate(REQUEST);
    }
    for (int i = 0; i < replicas.size(); i++) {
      int n = replicas.get(i).calls.get();
      assertTrue(n >= 100, "replica " + i + " got " + n + " calls of 1,000");
    }
  }
}
