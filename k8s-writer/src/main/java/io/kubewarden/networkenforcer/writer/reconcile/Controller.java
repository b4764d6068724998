package io.kubewarden.networkenforcer.writer.reconcile;

import io.kubewarden.networkenforcer.common.lifecycle.WorkerThreads;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One kind's work queue and the workers that drain it through its reconciler. Errors stay with
 * their key: a transient one retries that key with back-off, a permanent one is reported on the
 * object and waits for the next change; the other keys go on.
 */
public final class Controller<K> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Controller.class);

  private final String name;
  private final WorkQueue<K> queue;
  private final Reconciler<K> reconciler;
  private final MeterRegistry meters;
  private final List<Thread> workers = new ArrayList<>();

  public Controller(
      String name,
      Reconciler<K> reconciler,
      Duration baseDelay,
      Duration maxDelay,
      MeterRegistry meters) {
    this.name = name;
    this.queue = new WorkQueue<>(name, baseDelay, maxDelay);
    this.reconciler = reconciler;
    this.meters = meters;
  }

  public WorkQueue<K> queue() {
    return queue;
  }

  public void enqueue(K key) {
    queue.add(key);
  }

  /** Starts the workers; keys queued before this wait for them. */
  public void start(int workerCount, String threadSuffix) {
    for (int i = 0; i < workerCount; i++) {
      workers.add(WorkerThreads.start(name + "-" + threadSuffix + "-" + i, this::work));
    }
  }

  private void work() {
    try {
      while (true) {
        Optional<K> next = queue.take();
        if (next.isEmpty()) {
          return;
        }
        K key = next.get();
        try {
          runOnce(key);
        } finally {
          queue.done(key);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One reconcile of one key with its outcome applied to the queue. */
  void runOnce(K key) {
    try {
      Result r = reconciler.reconcile(key, new RetryInfo(queue.failures(key)));
      queue.forget(key);
      meters
          .counter("network.enforcer.writer.reconciles", "controller", name, "outcome", "ok")
          .increment();
      if (r.requeue()) {
        queue.addAfter(key, r.requeueAfter());
      }
    } catch (NotLeaderException e) {
      // The session is ending: the next leader reconciles every key from its own caches.
      LOG.debug("{} {}: {}", name, key, e.getMessage());
    } catch (PermanentError e) {
      queue.forget(key);
      meters
          .counter("network.enforcer.writer.reconciles", "controller", name, "outcome", "permanent")
          .increment();
      LOG.warn(
          "{} {}: {} ({}); not retried until the object changes",
          name,
          key,
          e.getMessage(),
          e.reason());
      try {
        reconciler.permanentFailure(key, e);
      } catch (NotLeaderException stop) {
        LOG.debug("{} {}: {}", name, key, stop.getMessage());
      } catch (RuntimeException report) {
        LOG.warn(
            "{} {}: cannot report the failure on the object: {}", name, key, report.toString());
      }
    } catch (RuntimeException e) {
      Duration delay = queue.retryLater(key);
      meters
          .counter("network.enforcer.writer.reconciles", "controller", name, "outcome", "retry")
          .increment();
      LOG.warn(
          "{} {}: {}; retrying in {} (failure {})",
          name,
          key,
          e.toString(),
          delay,
          queue.failures(key));
    }
  }

  /**
   * Stops the workers; a reconcile in flight finishes (its writes are refused once the lease is
   * gone).
   */
  @Override
  public void close() {
    queue.close();
    for (Thread t : workers) {
      try {
        t.join(Duration.ofSeconds(30).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
