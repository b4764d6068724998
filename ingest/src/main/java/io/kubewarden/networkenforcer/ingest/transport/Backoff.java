package io.kubewarden.networkenforcer.ingest.transport;

import java.time.Duration;
import java.util.Random;

/**
 * Exponential backoff with jitter between reconnects: each wait doubles up to a cap, and a random
 * part spreads many clients so they do not all reconnect at the same moment.
 */
public final class Backoff {
  private final Duration initial;
  private final Duration max;
  private final Random random;
  private Duration current;

  public Backoff(Duration initial, Duration max, Random random) {
    if (initial.isZero() || initial.isNegative() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("backoff needs 0 < initial <= max, got " + initial + " and " + max);
    }
    this.initial = initial;
    this.max = max;
    this.random = random;
    this.current = initial;
  }

  /** The next wait: between 80% and 120% of the current step; the step then doubles. */
  public synchronized Duration next() {
    long base = current.toMillis();
    long jitter = (long) (base * 0.4 * random.nextDouble()) - (long) (base * 0.2);
    Duration wait = Duration.ofMillis(Math.max(1, base + jitter));
    Duration doubled = current.multipliedBy(2);
    current = doubled.compareTo(max) > 0 ? max : doubled;
    return wait;
  }

  /** After a healthy stream the next failure starts from the initial wait again. */
  public synchronized void reset() {
    current = initial;
  }
}
