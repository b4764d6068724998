package io.kubewarden.networkenforcer.processor.learning;

import io.kubewarden.networkenforcer.common.flow.Counts;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Sighting;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;

/**
 * What was observed on one port of one peer of one target: the value of the evidence store. First
 * and last seen are the earliest and latest flow times, not arrival order, so the same flows in any
 * order give the same figures. {@code seenAs}: the kinds of record that proved the flows (at most
 * one per {@link Sighting}, so a port's evidence stays small however many flows it counts).
 */
public record PortStats(
    Protocol protocol,
    int port,
    Instant firstSeen,
    Instant lastSeen,
    long count,
    Set<Sighting> seenAs) {

  public PortStats {
    seenAs = seenAs == null || seenAs.isEmpty() ? Set.of() : Set.copyOf(seenAs);
  }

  /** Evidence without marks (evidence stored by older versions). */
  public PortStats(Protocol protocol, int port, Instant firstSeen, Instant lastSeen, long count) {
    this(protocol, port, firstSeen, lastSeen, count, Set.of());
  }

  /** The first flows on a port, seen as {@code seenAs} (null: not known). */
  public static PortStats first(
      Protocol protocol, int port, Instant first, Instant last, long count, Sighting seenAs) {
    return new PortStats(
        protocol, port, first, last, count, seenAs == null ? Set.of() : Set.of(seenAs));
  }

  /**
   * Adds {@code n} flows seen from {@code first} to {@code last} (one flow: both its time) as
   * {@code seenAs} (null: not known).
   */
  public PortStats observed(Instant first, Instant last, long n, Sighting seenAs) {
    return new PortStats(
        protocol,
        port,
        first.isBefore(firstSeen) ? first : firstSeen,
        last.isAfter(lastSeen) ? last : lastSeen,
        Counts.sum(count, n),
        seenAs == null || this.seenAs.contains(seenAs) ? this.seenAs : with(this.seenAs, seenAs));
  }

  /** This evidence and {@code other}'s (a widened address's port) as one. */
  public PortStats plus(PortStats other) {
    PortStats sum = observed(other.firstSeen, other.lastSeen, other.count, null);
    if (sum.seenAs.containsAll(other.seenAs)) {
      return sum;
    }
    EnumSet<Sighting> both = EnumSet.noneOf(Sighting.class);
    both.addAll(sum.seenAs);
    both.addAll(other.seenAs);
    return new PortStats(protocol, port, sum.firstSeen, sum.lastSeen, sum.count, both);
  }

  private static Set<Sighting> with(Set<Sighting> marks, Sighting mark) {
    EnumSet<Sighting> out = EnumSet.of(mark);
    out.addAll(marks);
    return out;
  }
}
