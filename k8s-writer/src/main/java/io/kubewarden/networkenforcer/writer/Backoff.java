package io.kubewarden.networkenforcer.writer;

import java.time.Duration;

/** Exponential back-off between failed attempts, reset by a success. */
public final class Backoff {
  private final Duration initial;
  private final Duration max;
  private Duration current;

  public Backoff(Duration initial, Duration max) {
    this.initial = initial;
    this.max = max;
    this.current = initial;
  }

  /** The wait before the next attempt; each call doubles the following one, up to the maximum. */
  public Duration next() {
    Duration d = current;
    Duration doubled = current.multipliedBy(2);
    current = doubled.compareTo(max) > 0 ? max : doubled;
    return d;
  }

  public void reset() {
    current = initial;
  }
}
