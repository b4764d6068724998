package io.kubewarden.networkenforcer.writer;

import io.kubewarden.networkenforcer.common.lifecycle.WorkerThreads;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Kafka consumers of a leader session, each on a thread of its own, and how to stop them: a
 * consumer's stop is known from its creation (the loss consumer catches up before its thread
 * starts), its thread from its start.
 */
final class ConsumerThreads {
  private final List<Runnable> stops = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();

  /** {@code stop} runs on {@link #stopAll}. */
  void stopsWith(Runnable stop) {
    stops.add(stop);
  }

  /** Runs {@code consumer} on a worker thread (one that dies of an exception ends the process). */
  void start(String name, Runnable consumer) {
    threads.add(WorkerThreads.start(name, consumer));
  }

  /** Asks every consumer to stop; returns at once. */
  void stopAll() {
    stops.forEach(Runnable::run);
  }

  /** Waits up to {@code each} for each thread to end. */
  void join(Duration each) {
    for (Thread t : threads) {
      try {
        t.join(each.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
