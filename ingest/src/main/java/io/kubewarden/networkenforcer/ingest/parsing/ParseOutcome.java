package io.kubewarden.networkenforcer.ingest.parsing;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What one provider record turned into: flow records, or the reason it was dropped. Lost events
 * reported by Hubble travel along so the caller can count and publish them.
 *
 * @param lossNode the node that lost the events, as the source names it; null when it does not say
 * @param lossTime when the data plane lost them (its own time when it gives one); null without loss
 * @param nodeStatus nodes the source could or could no longer read (Hubble Relay's node status);
 *     null when the record is no such report
 */
public record ParseOutcome(
    List<FlowRecord> records,
    DropReason dropReason,
    long lostEvents,
    String lossNode,
    Instant lossTime,
    NodeStatus nodeStatus) {

  /**
   * Nodes whose flows the source can read again ({@code readable}: connected, or gone from the
   * cluster) or can no longer read (unavailable, in error) since {@code at}.
   */
  public record NodeStatus(boolean readable, List<String> nodes, Instant at) {
    public NodeStatus {
      nodes = List.copyOf(nodes);
      Objects.requireNonNull(at, "at");
    }
  }

  public ParseOutcome {
    records = records == null ? List.of() : List.copyOf(records);
  }

  public ParseOutcome(
      List<FlowRecord> records,
      DropReason dropReason,
      long lostEvents,
      String lossNode,
      Instant lossTime) {
    this(records, dropReason, lostEvents, lossNode, lossTime, null);
  }

  public ParseOutcome(List<FlowRecord> records, DropReason dropReason, long lostEvents) {
    this(records, dropReason, lostEvents, null, null);
  }

  /**
   * A node status report: these nodes can ({@code readable}) or cannot be read since {@code at}.
   */
  public static ParseOutcome nodeStatus(boolean readable, List<String> nodes, Instant at) {
    return new ParseOutcome(
        List.of(), DropReason.NOT_A_FLOW, 0, null, null, new NodeStatus(readable, nodes, at));
  }

  public static ParseOutcome of(FlowRecord record) {
    return new ParseOutcome(List.of(record), null, 0);
  }

  public static ParseOutcome dropped(DropReason reason) {
    return new ParseOutcome(List.of(), Objects.requireNonNull(reason), 0);
  }

  public static ParseOutcome lostEvents(long count) {
    return new ParseOutcome(List.of(), DropReason.NOT_A_FLOW, count);
  }

  /** A loss report: {@code count} events lost on {@code node} (null: not said) at {@code time}. */
  public static ParseOutcome lostEvents(long count, String node, Instant time) {
    return new ParseOutcome(
        List.of(), DropReason.NOT_A_FLOW, count, node, Objects.requireNonNull(time));
  }

  public boolean isDropped() {
    return dropReason != null;
  }
}
