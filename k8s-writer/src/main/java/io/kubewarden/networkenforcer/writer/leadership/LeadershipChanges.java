package io.kubewarden.networkenforcer.writer.leadership;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * How often this replica took and lost the Lease. Both counters exist from the start (at 0), so a
 * rate over them is defined before the first change: a lease that changes hands often means
 * renewals that miss their deadline (API server or network under strain).
 */
public final class LeadershipChanges {
  static final String NAME = "network.enforcer.writer.leader.changes";

  private final Counter acquired;
  private final Counter lost;

  public LeadershipChanges(MeterRegistry meters) {
    acquired =
        Counter.builder(NAME)
            .tag("change", "acquired")
            .description("times this replica took the Lease")
            .register(meters);
    lost =
        Counter.builder(NAME)
            .tag("change", "lost")
            .description("times this replica lost or gave up the Lease")
            .register(meters);
  }

  public void acquired() {
    acquired.increment();
  }

  public void lost() {
    lost.increment();
  }
}
