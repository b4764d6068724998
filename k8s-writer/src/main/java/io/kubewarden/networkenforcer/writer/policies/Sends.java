package io.kubewarden.networkenforcer.writer.policies;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a record's send: one that was not written fails the reconcile, so its key is retried
 * with back-off instead of waiting for the next leader's resync.
 */
final class Sends {
  /**
   * Longer than a leader change of the partition, shorter than the producer's delivery timeout (2
   * min).
   */
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  private Sends() {}

  static void await(Future<?> send) {
    try {
      send.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while publishing", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("publishing failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("publishing took over " + TIMEOUT, e);
    }
  }
}
