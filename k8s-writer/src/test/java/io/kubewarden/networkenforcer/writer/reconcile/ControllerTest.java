package io.kubewarden.networkenforcer.writer.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The work queue's promises: coalescing, one worker per key, per-key back-off, errors stay with
 * their key.
 */
class ControllerTest {

  @Test
  void eventsForOneKeyCoalesceWhileItWaits() throws Exception {
    try (WorkQueue<String> q =
        new WorkQueue<>("test", Duration.ofMillis(10), Duration.ofSeconds(1))) {
      q.add("a");
      q.add("b");
      q.add("a");
      q.add("a");
      assertThat(q.length()).isEqualTo(2);
      assertThat(q.take()).contains("a");
      assertThat(q.take()).contains("b");
      assertThat(q.length()).isZero();
    }
  }

  @Test
  void aKeyAddedWhileItIsProcessedRunsOnceMoreAfterwardsNeverConcurrently() throws Exception {
    try (WorkQueue<String> q =
        new WorkQueue<>("test", Duration.ofMillis(10), Duration.ofSeconds(1))) {
      q.add("a");
      assertThat(q.take()).contains("a");
      q.add("a");
      q.add("a");
      assertThat(q.length()).as("not handed out while being processed").isZero();
      q.done("a");
      assertThat(q.length()).isEqualTo(1);
      assertThat(q.take()).contains("a");
      q.done("a");
      assertThat(q.length()).isZero();
    }
  }

  @Test
  void backOffDoublesPerKeyAndIsForgottenOnSuccess() {
    try (WorkQueue<String> q =
        new WorkQueue<>("test", Duration.ofMillis(100), Duration.ofMillis(500))) {
      assertThat(q.retryLater("a")).isEqualTo(Duration.ofMillis(100));
      assertThat(q.retryLater("a")).isEqualTo(Duration.ofMillis(200));
      assertThat(q.retryLater("a")).isEqualTo(Duration.ofMillis(400));
      assertThat(q.retryLater("a")).isEqualTo(Duration.ofMillis(500));
      assertThat(q.retryLater("b")).as("another key has its own").isEqualTo(Duration.ofMillis(100));
      q.forget("a");
      assertThat(q.failures("a")).isZero();
      assertThat(q.retryLater("a")).isEqualTo(Duration.ofMillis(100));
    }
  }

  @Test
  void aFailingKeyRetriesWithBackOffAPermanentOneIsReportedOnceAndNeitherBlocksTheOthers()
      throws Exception {
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    List<String> reported = new CopyOnWriteArrayList<>();
    CountDownLatch healthyDone = new CountDownLatch(20);
    Reconciler<String> reconciler =
        new Reconciler<>() {
          @Override
          public Result reconcile(String key) {
            int n = runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            if (key.equals("flaky") && n < 3) {
              throw new IllegalStateException("API server unreachable");
            }
            if (key.equals("refused")) {
              throw new PermanentError("Invalid", "never valid", null);
            }
            if (key.startsWith("ok-")) {
              healthyDone.countDown();
            }
            return Result.done();
          }

          @Override
          public void permanentFailure(String key, PermanentError error) {
            reported.add(key + ":" + error.reason());
          }
        };
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (Controller<String> c =
        new Controller<>(
            "test", reconciler, Duration.ofMillis(20), Duration.ofMillis(200), meters)) {
      c.enqueue("refused");
      c.enqueue("flaky");
      for (int i = 0; i < 20; i++) {
        c.enqueue("ok-" + i);
      }
      c.start(1, "t");
      assertThat(healthyDone.await(30, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> runs.get("flaky").get() == 3);
      assertThat(reported).containsExactly("refused:Invalid");
      assertThat(runs.get("refused").get()).as("a permanent error is not retried").isEqualTo(1);
      assertThat(
              meters
                  .counter(
                      "network.enforcer.writer.reconciles",
                      "controller",
                      "test",
                      "outcome",
                      "retry")
                  .count())
          .isEqualTo(2);
      assertThat(c.queue().failures("flaky")).as("forgotten after the success").isZero();
    }
  }

  @Test
  void aReconcilerSeesTheFailuresInARowOfItsKeyAndASuccessResetsThem() throws Exception {
    List<Integer> seen = new CopyOnWriteArrayList<>();
    Reconciler<String> reconciler =
        new Reconciler<>() {
          @Override
          public Result reconcile(String key) {
            throw new AssertionError("the controller passes the retry info");
          }

          @Override
          public Result reconcile(String key, RetryInfo retry) {
            seen.add(retry.failuresInARow());
            if (seen.size() < 3) {
              throw new IllegalStateException("API server answered 500");
            }
            return Result.done();
          }
        };
    try (Controller<String> c =
        new Controller<>(
            "test",
            reconciler,
            Duration.ofMillis(10),
            Duration.ofMillis(50),
            new SimpleMeterRegistry())) {
      c.enqueue("a");
      c.start(1, "t");
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);
      c.enqueue("a");
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 4);
      assertThat(seen).containsExactly(0, 1, 2, 0);
    }
  }
}
