package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * Events the data plane lost while the capture was taken (Hubble {@code lost_events}), or while the
 * flows of a replayed window were recorded: the input has a blind spot, so no proposal learned from
 * it can claim to be complete. Nothing says which targets the lost flows concerned, so every
 * proposal is held not converged.
 */
public final class CaptureLoss {
  private CaptureLoss() {}

  /** Events the data plane reported lost in the capture. */
  static long lostEvents(MeterRegistry registry) {
    return Math.round(
        registry.find("network.enforcer.ingest.hubble.lost.events").counters().stream()
            .mapToDouble(Counter::count)
            .sum());
  }

  /**
   * The proposals with {@code Converged=False, reason EventsLost} when events were lost or nodes
   * could not be read while the capture was taken.
   */
  static List<ProposalSnapshot> mark(
      List<ProposalSnapshot> proposals, long lost, Collection<String> unreadableNodes) {
    if (lost <= 0 && unreadableNodes.isEmpty()) {
      return proposals;
    }
    String message =
        "the data plane "
            + missed(lost, unreadableNodes)
            + " while the capture was taken: peers may be missing; learn again from a capture without loss";
    return proposals.stream().map(p -> held(p, message)).toList();
  }

  /** What the data plane missed: events lost, nodes it could not read, or both. */
  public static String missed(long lost, Collection<String> unreadableNodes) {
    String events = lost > 0 ? "lost " + lost + " events" : null;
    String nodes =
        unreadableNodes.isEmpty()
            ? null
            : "could not read node"
                + (unreadableNodes.size() == 1 ? " " : "s ")
                + String.join(", ", unreadableNodes)
                + " for a time";
    return events == null ? nodes : nodes == null ? events : events + " and " + nodes;
  }

  /**
   * The proposal with {@code Converged=False, reason EventsLost} and this message, since its last
   * verdict.
   */
  public static ProposalSnapshot held(ProposalSnapshot p, String message) {
    Instant since =
        p.convergence() != null
            ? p.convergence().since()
            : p.updatedAt() != null ? p.updatedAt() : Instant.EPOCH;
    return p.withConvergence(new Convergence(false, since, "EventsLost", message));
  }
}
