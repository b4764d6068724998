package io.kubewarden.networkenforcer.common.loss;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.kubewarden.networkenforcer.common.flow.Counts;
import io.kubewarden.networkenforcer.common.flow.Provider;
import java.time.Instant;
import java.util.Objects;

/**
 * Events a data plane reported lost on one node within one window of the ingest, value of the
 * {@code data-plane-loss} topic (ingest to writer). Flows of those events never reached the
 * pipeline, so no proposal learned over that window can claim to be complete.
 *
 * @param provider whose data plane lost them
 * @param node the node as the source names it (Hubble Relay: {@code <cluster>/<node>}); null when
 *     the source does not say
 * @param from the first loss report of the window (the data plane's time when it gives one)
 * @param to the last loss report of the window
 * @param lostEvents the exact sum of the events the reports say were lost
 * @param reports how many loss reports were folded into this record
 * @param nodeUnavailable true when the data plane could not be read on the node during the window
 *     (Hubble Relay reported it unavailable or in error): its flows were missed and nobody counted
 *     them; absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DataPlaneLoss(
    Provider provider,
    String node,
    Instant from,
    Instant to,
    long lostEvents,
    long reports,
    Boolean nodeUnavailable) {

  /** Events reported lost (no unavailable node). */
  public DataPlaneLoss(
      Provider provider, String node, Instant from, Instant to, long lostEvents, long reports) {
    this(provider, node, from, to, lostEvents, reports, null);
  }

  /**
   * The node could not be read from {@code from} to {@code to}: its flows were missed, uncounted.
   */
  public static DataPlaneLoss unavailable(
      Provider provider, String node, Instant from, Instant to) {
    return new DataPlaneLoss(provider, node, from, to, 0, 1, Boolean.TRUE);
  }

  public DataPlaneLoss {
    nodeUnavailable = Boolean.TRUE.equals(nodeUnavailable) ? Boolean.TRUE : null;
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (to.isBefore(from)) {
      throw new IllegalArgumentException(
          "loss window ends (to " + to + ") before it starts (from " + from + ")");
    }
    if (lostEvents < 0 || reports < 1) {
      throw new IllegalArgumentException(
          "a loss record needs lostEvents >= 0 and reports >= 1, got "
              + lostEvents
              + " and "
              + reports);
    }
  }

  /** The record key: provider and node, so the loss of one node stays in order. */
  @JsonIgnore
  public String key() {
    return provider.name() + "/" + (node == null ? "" : node);
  }

  /** This window and a later report of the same provider and node, folded. */
  public DataPlaneLoss plus(DataPlaneLoss other) {
    return new DataPlaneLoss(
        provider,
        node,
        from.isBefore(other.from) ? from : other.from,
        to.isAfter(other.to) ? to : other.to,
        Counts.sum(lostEvents, other.lostEvents),
        Counts.sum(reports, other.reports),
        unavailable() || other.unavailable());
  }

  /** Whether the node could not be read during the window. */
  @JsonIgnore
  public boolean unavailable() {
    return Boolean.TRUE.equals(nodeUnavailable);
  }

  /**
   * Whether flows were missed in the window: events reported lost, or the node could not be read.
   */
  @JsonIgnore
  public boolean missedFlows() {
    return lostEvents > 0 || unavailable();
  }
}
