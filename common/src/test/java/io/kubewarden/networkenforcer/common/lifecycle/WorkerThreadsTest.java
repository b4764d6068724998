package io.kubewarden.networkenforcer.common.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class WorkerThreadsTest {

  @Test
  void aWorkerThatDiesOfAnExceptionEndsTheProcessAndOneThatReturnsDoesNot() throws Exception {
    CompletableFuture<Throwable> died = new CompletableFuture<>();
    Consumer<Throwable> before = WorkerThreads.onDeath(died::complete);
    try {
      Thread fine = WorkerThreads.start("fine", () -> {});
      fine.join(10_000);
      assertThat(died).isNotDone();

      IllegalArgumentException cause = new IllegalArgumentException("not namespace/name: /x");
      Thread t =
          WorkerThreads.start(
              "consumer",
              () -> {
                throw cause;
              });
      assertThat(died.get(10, TimeUnit.SECONDS)).isSameAs(cause);
      assertThat(t.isDaemon()).isTrue();
    } finally {
      assertThat(WorkerThreads.onDeath(before)).isNotSameAs(WorkerThreads.EXIT);
    }
    assertThat(WorkerThreads.onDeath(WorkerThreads.EXIT)).isSameAs(WorkerThreads.EXIT);
  }

  @Test
  void aTimerTaskThatThrowsEndsTheProcessInsteadOfStoppingItsScheduleSilently() throws Exception {
    CompletableFuture<Throwable> died = new CompletableFuture<>();
    Consumer<Throwable> before = WorkerThreads.onDeath(died::complete);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicInteger runs = new AtomicInteger();
      IllegalStateException cause = new IllegalStateException("window flush failed");
      timer.scheduleAtFixedRate(
          WorkerThreads.ending(
              "flow-aggregation",
              () -> {
                if (runs.incrementAndGet() == 3) {
                  throw cause;
                }
              }),
          1,
          1,
          TimeUnit.MILLISECONDS);
      assertThat(died.get(10, TimeUnit.SECONDS)).isSameAs(cause);
      assertThat(runs.get()).isEqualTo(3);
    } finally {
      timer.shutdownNow();
      WorkerThreads.onDeath(before);
    }
  }
}
