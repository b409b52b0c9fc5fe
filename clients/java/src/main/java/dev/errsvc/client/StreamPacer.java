package dev.errsvc.client;

import com.google.rpc.RetryInfo;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/** translateAll's sender and receiver over one TranslateStream, as the Go and Python SDKs do it. */
final class StreamPacer {
  /** How many requests translateAll keeps unanswered at once. */
  static final int WINDOW = ErrsvcClient.STREAM_WINDOW;
  /** How often one request is sent after the server refused it over the stream's rate. */
  static final int ITEM_ATTEMPTS = ErrsvcClient.STREAM_ITEM_ATTEMPTS;
  /** The longest interval between two sends that refusals can set. */
  static final Duration MAX_PACE = Duration.ofSeconds(1);

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<Integer> queue = new ArrayDeque<>();
  private final ArrayDeque<Integer> inFlight = new ArrayDeque<>();
  private final int[] attempts;
  private final int total;
  private int done;
  private long intervalNanos;
  private long nextNanos = System.nanoTime();
  private boolean stopped;

  private StreamPacer(int total) {
    this.total = total;
    this.attempts = new int[total];
    for (int i = 0; i < total; i++) {
      queue.add(i);
    }
  }

  static List<TranslateResponse> translateAll(ErrsvcClient client, List<TranslateRequest> reqs) {
    int n = reqs.size();
    if (n == 0) {
      return List.of();
    }
    TranslateResponse[] out = new TranslateResponse[n];
    StreamPacer p = new StreamPacer(n);
    try (TranslateStream s = client.openStream()) {
      Thread sender = new Thread(() -> p.send(s, reqs), "errsvc-translate-all");
      sender.setDaemon(true);
      sender.start();
      try {
        while (!p.finished()) {
          TranslateResponse resp = s.receive();
          if (resp == null) {
            throw ErrsvcException.of(Status.Code.UNKNOWN,
                "stream ended after " + p.doneCount() + " of " + n + " answers", ErrsvcException.Kind.RESPONSE, null);
          }
          p.received(resp, out);
        }
        // Every answer is in; the server ends the stream after closeSend.
        s.receive();
      } finally {
        p.stop();
        try {
          sender.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    return new ArrayList<>(Arrays.asList(out));
  }

  private boolean finished() {
    lock.lock();
    try {
      return done == total;
    } finally {
      lock.unlock();
    }
  }

  private int doneCount() {
    lock.lock();
    try {
      return done;
    } finally {
      lock.unlock();
    }
  }

  private void stop() {
    lock.lock();
    try {
      stopped = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sends queued requests, at most WINDOW unanswered and no faster than the pace, until every
   * request is answered; then closes the sending side.
   */
  private void send(TranslateStream s, List<TranslateRequest> reqs) {
    while (true) {
      int i;
      lock.lock();
      try {
        if (stopped) {
          return;
        }
        if (done == total) {
          s.closeSend();
          return;
        }
        if (queue.isEmpty() || inFlight.size() >= WINDOW) {
          changed.awaitUninterruptibly();
          continue;
        }
        long wait = nextNanos - System.nanoTime();
        if (wait > 0) {
          changed.awaitNanos(wait);
          continue;
        }
        i = queue.removeFirst();
        inFlight.addLast(i);
        attempts[i]++;
        nextNanos = System.nanoTime() + intervalNanos;
        // Sent under the lock: the receiver reads inFlight's head, appended before the message left.
        try {
          s.send(reqs.get(i));
        } catch (RuntimeException e) {
          return; // the stream broke: receive reports why
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        lock.unlock();
      }
    }
  }

  /** Files one answer under the request it answers, or queues the request again when the stream's rate refused it. */
  private void received(TranslateResponse resp, TranslateResponse[] out) {
    lock.lock();
    try {
      Integer i = inFlight.pollFirst();
      if (i == null) {
        throw ErrsvcException.of(Status.Code.INTERNAL, "stream answered more messages than were sent",
            ErrsvcException.Kind.RESPONSE, null);
      }
      Duration delay = rateRefusal(resp);
      if (delay != null && attempts[i] < ITEM_ATTEMPTS) {
        queue.addFirst(i);
        long d = delay.toNanos();
        intervalNanos = Math.min(Math.max(intervalNanos, d), MAX_PACE.toNanos());
        long t = System.nanoTime() + Math.min(d, MAX_PACE.toNanos());
        if (t - nextNanos > 0) {
          nextNanos = t;
        }
      } else {
        out[i] = resp;
        done++;
      }
    } finally {
      changed.signalAll();
      lock.unlock();
    }
  }

  /**
   * The wait of a stream item refused over the stream's rate (RESOURCE_EXHAUSTED with a
   * google.rpc.RetryInfo), else null.
   */
  static @Nullable Duration rateRefusal(TranslateResponse resp) {
    if (!resp.hasError() || resp.getError().getCode() != Status.Code.RESOURCE_EXHAUSTED.value()) {
      return null;
    }
    for (RetryInfo ri : ErrsvcException.unpack(resp.getError(), RetryInfo.class)) {
      Duration d = Duration.ofSeconds(ri.getRetryDelay().getSeconds(), ri.getRetryDelay().getNanos());
      return d.isNegative() ? Duration.ZERO : d;
    }
    return null;
  }
}
