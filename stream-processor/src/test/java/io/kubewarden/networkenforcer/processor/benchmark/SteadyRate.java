package io.kubewarden.networkenforcer.processor.benchmark;

import java.util.function.LongSupplier;

/**
 * Flows processed per second between 10 % and 90 % of a backlog, from a count sampled every 10 ms
 * on a thread of its own: the steady rate, without start-up and the last timer waits.
 */
final class SteadyRate {
  private final LongSupplier processed;
  private final long flows;
  private final Thread sampler;
  private long tenPercent;
  private long ninetyPercent;

  private SteadyRate(LongSupplier processed, long flows) {
    this.processed = processed;
    this.flows = flows;
    this.sampler = new Thread(this::sample, "steady-rate-sampler");
  }

  static SteadyRate start(LongSupplier processed, long flows) {
    SteadyRate rate = new SteadyRate(processed, flows);
    rate.sampler.start();
    return rate;
  }

  private void sample() {
    while (ninetyPercent == 0) {
      long n = processed.getAsLong();
      if (tenPercent == 0 && n >= 0.1 * flows) {
        tenPercent = System.nanoTime();
      }
      if (n >= 0.9 * flows) {
        ninetyPercent = System.nanoTime();
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Waits for the 90 % mark (the sampler's own thread, joined: its marks are then visible). */
  double flowsPerSecond() throws InterruptedException {
    sampler.join();
    return 0.8 * flows / ((ninetyPercent - tenPercent) / 1e9);
  }
}
