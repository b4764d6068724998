package io.kubewarden.networkenforcer.cli.management;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers the first thread that ended with an uncaught exception while a service watches. A
 * worker of a service (a writer controller, a leader session loop, an ingest stream) that dies that
 * way leaves a process that still answers HTTP but no longer works: liveness must fail so that the
 * kubelet restarts it. Threads with a handler of their own (Kafka Streams' stream threads) are
 * judged by that handler and the service's own check.
 */
public final class ThreadDeaths implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ThreadDeaths.class);

  /**
   * Every watcher of this JVM: the JVM has one default handler, a process may run several services
   * (tests).
   */
  private static final Set<ThreadDeaths> WATCHING = ConcurrentHashMap.newKeySet();

  /**
   * Our handler while it is the JVM's default; a library that sets its own replaces it (see below).
   */
  private static volatile Thread.UncaughtExceptionHandler ours;

  private final AtomicReference<String> first = new AtomicReference<>();

  private ThreadDeaths() {}

  /** Watches from now on, until {@link #close()}. */
  public static ThreadDeaths watch() {
    ensureInstalled();
    ThreadDeaths watcher = new ThreadDeaths();
    WATCHING.add(watcher);
    return watcher;
  }

  /**
   * Makes our handler the JVM's default again if something replaced it (Kafka's and other
   * libraries' start code may set one); the one found keeps running after ours.
   */
  private static synchronized void ensureInstalled() {
    Thread.UncaughtExceptionHandler current = Thread.getDefaultUncaughtExceptionHandler();
    if (current != null && current == ours) {
      return;
    }
    Thread.UncaughtExceptionHandler handler =
        (thread, error) -> {
          LOG.error(
              "thread {} died: {}; the process reports itself not alive",
              thread.getName(),
              error.toString(),
              error);
          WATCHING.forEach(w -> w.first.compareAndSet(null, thread.getName() + ": " + error));
          if (current != null) {
            current.uncaughtException(thread, error);
          }
        };
    ours = handler;
    Thread.setDefaultUncaughtExceptionHandler(handler);
  }

  /** The liveness check: passes while no thread has died of an uncaught exception. */
  public ManagementServer.Check check() {
    return new ManagementServer.Check(
        "threads",
        () -> {
          ensureInstalled(); // every probe re-asserts the handler
          return first.get() == null;
        });
  }

  /** The first death seen ({@code thread: exception}); null while none. */
  public String firstDeath() {
    return first.get();
  }

  @Override
  public void close() {
    WATCHING.remove(this);
  }
}
