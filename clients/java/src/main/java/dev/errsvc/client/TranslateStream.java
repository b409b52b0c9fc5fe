package dev.errsvc.client;

import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import dev.errsvc.v1.TranslationServiceGrpc;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One TranslateStream call, used in lock step or pipelined: {@link #send} requests, {@link
 * #receive} each answer in order, {@link #closeSend} when done; {@link #receive} then returns null
 * once every answer is in. A malformed request gets an answer with its own {@code error} and the
 * stream goes on. {@link #send} may be called from one thread while another receives.
 */
public final class TranslateStream implements AutoCloseable {
  private static final Object END = new Object();

  private final LinkedBlockingQueue<Object> answers = new LinkedBlockingQueue<>();
  private final ClientCallStreamObserver<TranslateRequest> requests;
  private boolean sendClosed;
  private boolean ended;

  TranslateStream(Channel channel, @Nullable Duration deadline) {
    TranslationServiceGrpc.TranslationServiceStub stub = TranslationServiceGrpc.newStub(channel);
    if (deadline != null) {
      stub = stub.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
    }
    Holder holder = new Holder();
    stub.translateStream(holder);
    if (holder.call == null) {
      throw new IllegalStateException("TranslateStream did not start");
    }
    this.requests = holder.call;
  }

  private final class Holder implements ClientResponseObserver<TranslateRequest, TranslateResponse> {
    @Nullable ClientCallStreamObserver<TranslateRequest> call;

    @Override
    public void beforeStart(ClientCallStreamObserver<TranslateRequest> requestStream) {
      call = requestStream;
    }

    @Override
    public void onNext(TranslateResponse value) {
      answers.add(value);
    }

    @Override
    public void onError(Throwable t) {
      answers.add(ErrsvcClient.failure(t instanceof RuntimeException r ? r : new RuntimeException(t)));
    }

    @Override
    public void onCompleted() {
      answers.add(END);
    }
  }

  /**
   * Sends one request.
   *
   * @throws ErrsvcException FAILED_PRECONDITION after closeSend
   */
  public synchronized void send(TranslateRequest request) {
    if (sendClosed) {
      throw ErrsvcException.of(Status.Code.FAILED_PRECONDITION, "send after closeSend",
          ErrsvcException.Kind.USAGE, null);
    }
    requests.onNext(request);
  }

  /** Ends the sending side: the server answers what it has and ends the stream. Idempotent. */
  public synchronized void closeSend() {
    if (!sendClosed) {
      sendClosed = true;
      requests.onCompleted();
    }
  }

  /**
   * The next answer, waiting for it; null once the stream has ended normally.
   *
   * @throws ErrsvcException the stream failed (its status)
   */
  public @Nullable TranslateResponse receive() {
    if (ended) {
      return null;
    }
    Object o;
    try {
      o = answers.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel("interrupted");
      throw ErrsvcException.of(Status.Code.CANCELLED, "interrupted", ErrsvcException.Kind.TRANSPORT, e);
    }
    return unwrap(o);
  }

  /** {@link #receive()} waiting at most timeout; null as well when nothing came in time: see {@link #ended()}. */
  public @Nullable TranslateResponse receive(Duration timeout) {
    if (ended) {
      return null;
    }
    Object o;
    try {
      o = answers.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel("interrupted");
      throw ErrsvcException.of(Status.Code.CANCELLED, "interrupted", ErrsvcException.Kind.TRANSPORT, e);
    }
    return o == null ? null : unwrap(o);
  }

  private @Nullable TranslateResponse unwrap(Object o) {
    if (o == END) {
      ended = true;
      return null;
    }
    if (o instanceof ErrsvcException e) {
      ended = true;
      throw e;
    }
    return (TranslateResponse) o;
  }

  /** Whether the stream has ended (normally or not) as far as {@link #receive} has seen. */
  public boolean ended() {
    return ended;
  }

  /** Cancels the call; a pending {@link #receive} fails with CANCELLED. */
  public void cancel(String why) {
    requests.cancel(why, null);
  }

  /** Cancels the call unless it has ended. */
  @Override
  public void close() {
    if (!ended) {
      cancel("closed by the client");
    }
  }
}
