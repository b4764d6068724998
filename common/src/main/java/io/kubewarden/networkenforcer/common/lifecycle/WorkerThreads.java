package io.kubewarden.networkenforcer.common.lifecycle;

import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Threads a service cannot run without (a topic consumer, a reconcile worker). One that dies of an
 * exception ends the process: a service that keeps its lease or its readiness with a dead worker
 * does nothing and tells nobody, while a restarted one carries on from its committed offsets.
 */
public final class WorkerThreads {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerThreads.class);

  /** Exit status of a process ended by a dead worker (EX_SOFTWARE). */
  public static final int EXIT_STATUS = 70;

  /** Ends the JVM from a thread of its own: the shutdown hooks may join the dying worker. */
  public static final Consumer<Throwable> EXIT =
      e -> {
        Thread exit = new Thread(() -> System.exit(EXIT_STATUS), "worker-died-exit");
        exit.setDaemon(false);
        exit.start();
      };

  private static volatile Consumer<Throwable> onDeath = EXIT;

  private WorkerThreads() {}

  /** Starts a daemon worker whose death by an exception ends the process. */
  public static Thread start(String name, Runnable work) {
    Thread t = new Thread(work, name);
    t.setDaemon(true);
    t.setUncaughtExceptionHandler((thread, e) -> died(thread.getName(), e));
    t.start();
    return t;
  }

  /**
   * Work an executor runs (a timer's task) rather than a thread of its own. An executor keeps the
   * exception in a future nobody reads and cancels the schedule, so the service went on without the
   * work, ready; here a throw ends the process as a dead worker's does.
   */
  public static Runnable ending(String name, Runnable work) {
    Objects.requireNonNull(work, "work");
    return () -> {
      try {
        work.run();
      } catch (RuntimeException | Error e) {
        died(name, e);
        throw e;
      }
    };
  }

  private static void died(String name, Throwable e) {
    LOG.error("worker thread {} died; ending the process so that it is restarted", name, e);
    onDeath.accept(e);
  }

  /**
   * What a worker's death does, process-wide ({@link #EXIT} unless replaced): a process has one
   * answer to it; tests that run services in the test JVM replace it and put it back.
   */
  public static Consumer<Throwable> onDeath(Consumer<Throwable> action) {
    Consumer<Throwable> before = onDeath;
    onDeath = Objects.requireNonNull(action, "action");
    return before;
  }
}
