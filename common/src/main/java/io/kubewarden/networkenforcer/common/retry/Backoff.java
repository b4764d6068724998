package io.kubewarden.networkenforcer.common.retry;

import java.time.Duration;
import java.util.Random;

/**
 * Exponential backoff between failed attempts: each wait doubles up to a cap, and a success resets
 * it. With a random source the waits get jitter (80% to 120% of the step), so many clients that
 * failed together do not all retry at the same moment.
 */
public final class Backoff {
  private final Duration initial;
  private final Duration max;
  private final Random random;
  private Duration current;

  /** Without jitter: the waits are exactly initial, 2 x initial, ... up to max. */
  public Backoff(Duration initial, Duration max) {
    this(initial, max, null, false);
  }

  /** With jitter drawn from {@code random}. */
  public Backoff(Duration initial, Duration max, Random random) {
    this(initial, max, random, true);
  }

  private Backoff(Duration initial, Duration max, Random random, boolean jitter) {
    boolean badInitial = jitter ? initial.isZero() || initial.isNegative() : initial.isNegative();
    if (badInitial || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "backoff needs "
              + (jitter ? "0 <" : "0 <=")
              + " initial <= max, got "
              + initial
              + " and "
              + max);
    }
    this.initial = initial;
    this.max = max;
    this.random = random;
    this.current = initial;
  }

  /** The next wait; the step then doubles, up to the maximum. */
  public synchronized Duration next() {
    Duration wait = current;
    if (random != null) {
      long base = current.toMillis();
      long jitter = (long) (base * 0.4 * random.nextDouble()) - (long) (base * 0.2);
      wait = Duration.ofMillis(Math.max(1, base + jitter));
    }
    Duration doubled = current.multipliedBy(2);
    current = doubled.compareTo(max) > 0 ? max : doubled;
    return wait;
  }

  /** After a success the next failure starts from the initial wait again. */
  public synchronized void reset() {
    current = initial;
  }
}
