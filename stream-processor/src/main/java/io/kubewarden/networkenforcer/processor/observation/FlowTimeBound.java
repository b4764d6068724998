package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import java.time.Duration;
import java.time.Instant;

/**
 * Flow times are the processor's clock (the latest one a task saw is "now" for convergence), so a
 * flow dated in the future (a node's clock set wrong, a forged record) would move that clock for
 * good and end every target's quiet period at once. A flow cannot have been seen after it was
 * published: its times are bounded by its record's timestamp (the producer's clock at publish) plus
 * a tolerance for clock skew between the nodes and the publisher.
 */
public final class FlowTimeBound {
  /** Skew between a node's clock and the publisher's that is taken as it comes. */
  public static final Duration TOLERANCE = Duration.ofMinutes(5);

  private FlowTimeBound() {}

  /** The flow itself when its times are plausible; otherwise a copy with them set to the bound. */
  public static FlowRecord clamp(FlowRecord flow, long publishedMillis) {
    if (publishedMillis <= 0) {
      return flow; // no timestamp on the record: nothing to compare with
    }
    Instant bound = Instant.ofEpochMilli(publishedMillis).plus(TOLERANCE);
    if (!flow.lastSeen().isAfter(bound)) {
      return flow;
    }
    Instant first = flow.time().isAfter(bound) ? bound : flow.time();
    return flow.withTimes(first, flow.count(), bound);
  }
}
