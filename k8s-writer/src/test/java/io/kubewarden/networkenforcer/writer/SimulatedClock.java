package io.kubewarden.networkenforcer.writer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock a test moves by hand: days pass without a sleep. */
public final class SimulatedClock extends Clock {
  private final AtomicReference<Instant> now;

  public SimulatedClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  public void set(Instant t) {
    now.set(t);
  }

  public void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
