package io.kubewarden.networkenforcer.processor.learning;

import io.kubewarden.networkenforcer.common.flow.Protocol;
import java.time.Instant;

/**
 * What was observed on one port of one peer of one target: the value of the evidence store. First
 * and last seen are the earliest and latest flow times, not arrival order, so the same flows in
 * any order give the same figures.
 */
public record PortStats(Protocol protocol, int port, Instant firstSeen, Instant lastSeen, long count) {

  public static PortStats first(Protocol protocol, int port, Instant time, long count) {
    return new PortStats(protocol, port, time, time, count);
  }

  public PortStats observed(Instant time, long n) {
    return new PortStats(protocol, port, time.isBefore(firstSeen) ? time : firstSeen,
        time.isAfter(lastSeen) ? time : lastSeen, count + n);
  }
}
