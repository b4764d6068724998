package io.kubewarden.networkenforcer.writer.reconcile;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A queue of keys to reconcile, with the guarantees controllers rely on: a key is queued at most
 * once however often it is added (events coalesce), it is never handed to two workers at once (an
 * add while it is processed queues it again after {@link #done}), and failures back off per key, so
 * one failing key never delays the others.
 */
public final class WorkQueue<K> implements AutoCloseable {
  private final Object lock = new Object();
  private final LinkedHashSet<K> queued = new LinkedHashSet<>();
  private final Set<K> processing = new HashSet<>();

  /** Added while being processed: queued again once done. */
  private final Set<K> dirty = new HashSet<>();

  private final Map<K, Integer> failures = new HashMap<>();
  private final ScheduledExecutorService timer;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private boolean shutDown;

  public WorkQueue(String name, Duration baseDelay, Duration maxDelay) {
    this.baseDelay = baseDelay;
    this.maxDelay = maxDelay;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, name + "-delays");
              t.setDaemon(true);
              return t;
            });
  }

  /** Queues the key unless it is queued already. */
  public void add(K key) {
    synchronized (lock) {
      if (shutDown) {
        return;
      }
      if (processing.contains(key)) {
        dirty.add(key);
      } else if (queued.add(key)) {
        lock.notifyAll();
      }
    }
  }

  /** Queues the key after a delay. */
  public void addAfter(K key, Duration delay) {
    if (delay.isZero() || delay.isNegative()) {
      add(key);
      return;
    }
    synchronized (lock) {
      if (shutDown) {
        return;
      }
      timer.schedule(() -> add(key), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** The next key to work on, marked as being processed; empty once the queue is shut down. */
  public Optional<K> take() throws InterruptedException {
    synchronized (lock) {
      while (queued.isEmpty() && !shutDown) {
        lock.wait();
      }
      if (shutDown) {
        return Optional.empty();
      }
      var it = queued.iterator();
      K key = it.next();
      it.remove();
      processing.add(key);
      return Optional.of(key);
    }
  }

  /** The worker finished the key; an add that came meanwhile queues it again. */
  public void done(K key) {
    synchronized (lock) {
      processing.remove(key);
      if (dirty.remove(key) && !shutDown && queued.add(key)) {
        lock.notifyAll();
      }
    }
  }

  /** The key failed again: it is queued after its next back-off (doubling per failure, capped). */
  public Duration retryLater(K key) {
    Duration delay;
    synchronized (lock) {
      int n = failures.merge(key, 1, Integer::sum);
      delay = backoff(n);
    }
    addAfter(key, delay);
    return delay;
  }

  private Duration backoff(int failures) {
    long millis = baseDelay.toMillis() << Math.min(failures - 1, 30);
    return millis <= 0 || millis > maxDelay.toMillis() ? maxDelay : Duration.ofMillis(millis);
  }

  /** The key succeeded (or gave up): its back-off starts over. */
  public void forget(K key) {
    synchronized (lock) {
      failures.remove(key);
    }
  }

  public int failures(K key) {
    synchronized (lock) {
      return failures.getOrDefault(key, 0);
    }
  }

  /** Keys waiting (not counting those being processed or waiting for their back-off). */
  public int length() {
    synchronized (lock) {
      return queued.size();
    }
  }

  /** Workers waiting in {@link #take} return empty; later adds are ignored. */
  @Override
  public void close() {
    synchronized (lock) {
      shutDown = true;
      queued.clear();
      dirty.clear();
      lock.notifyAll();
    }
    timer.shutdownNow();
  }
}
