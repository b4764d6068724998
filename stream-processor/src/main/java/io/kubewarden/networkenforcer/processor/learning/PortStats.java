package io.kubewarden.networkenforcer.processor.learning;

import io.kubewarden.networkenforcer.common.flow.Counts;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import java.time.Instant;

/**
 * What was observed on one port of one peer of one target: the value of the evidence store. First
 * and last seen are the earliest and latest flow times, not arrival order, so the same flows in any
 * order give the same figures.
 */
public record PortStats(
    Protocol protocol, int port, Instant firstSeen, Instant lastSeen, long count) {

  public static PortStats first(
      Protocol protocol, int port, Instant first, Instant last, long count) {
    return new PortStats(protocol, port, first, last, count);
  }

  /** Adds {@code n} flows seen from {@code first} to {@code last} (one flow: both its time). */
  public PortStats observed(Instant first, Instant last, long n) {
    return new PortStats(
        protocol,
        port,
        first.isBefore(firstSeen) ? first : firstSeen,
        last.isAfter(lastSeen) ? last : lastSeen,
        Counts.sum(count, n));
  }
}
