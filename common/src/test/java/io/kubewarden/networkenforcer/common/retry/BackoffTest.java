package io.kubewarden.networkenforcer.common.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void waitsDoubleUpToTheCapWithJitterAndStartOverAfterReset() {
    Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8), new Random(42));
    long[] steps = {1000, 2000, 4000, 8000, 8000, 8000};
    for (long step : steps) {
      long wait = backoff.next().toMillis();
      assertThat(wait).isBetween((long) (step * 0.8), (long) (step * 1.2));
    }
    backoff.reset();
    assertThat(backoff.next().toMillis()).isBetween(800L, 1200L);
  }

  @Test
  void jitterSpreadsClientsApart() {
    Backoff a = new Backoff(Duration.ofSeconds(10), Duration.ofSeconds(60), new Random(1));
    Backoff b = new Backoff(Duration.ofSeconds(10), Duration.ofSeconds(60), new Random(2));
    assertThat(a.next()).isNotEqualTo(b.next());
  }

  @Test
  void withoutJitterTheWaitsAreExact() {
    Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(3));
    assertThat(
            new Duration[] {
              backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()
            })
        .containsExactly(
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(3),
            Duration.ofSeconds(3));
    backoff.reset();
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), new Random()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1), new Random()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
