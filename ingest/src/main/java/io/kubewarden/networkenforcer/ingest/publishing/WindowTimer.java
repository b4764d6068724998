package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.lifecycle.WorkerThreads;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The timer that closes a window every {@code window} on a daemon thread of its own. */
final class WindowTimer {
  private WindowTimer() {}

  /**
   * Runs {@code flush} every {@code window}; null when the window is zero (nothing is held back).
   */
  static ScheduledExecutorService every(Duration window, String threadName, Runnable flush) {
    if (window.isZero()) {
      return null;
    }
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    long millis = Math.max(1, window.toMillis());
    // A flush that throws would cancel the schedule silently: windows no longer published, loss
    // records no longer sent, the process still ready. It ends the process instead.
    timer.scheduleAtFixedRate(
        WorkerThreads.ending(threadName, flush), millis, millis, TimeUnit.MILLISECONDS);
    return timer;
  }
}
