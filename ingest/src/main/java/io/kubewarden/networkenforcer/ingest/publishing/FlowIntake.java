package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The one place every source hands its results to: records go to the sinks, drops and lost events
 * are counted, unreadable input goes to the dead-letter sink and is counted.
 */
public final class FlowIntake {
  private final List<FlowSink> sinks;
  private final DeadLetterSink deadLetters;
  private final IngestMetrics metrics;
  private final List<DroppedInputSink> droppedSinks;
  private final AtomicLong published = new AtomicLong();
  private volatile LossSink losses = LossSink.NONE;

  public FlowIntake(List<FlowSink> sinks, DeadLetterSink deadLetters, IngestMetrics metrics) {
    this(sinks, deadLetters, metrics, List.of());
  }

  /**
   * @param droppedSinks also told about every record dropped, with its reason and input
   */
  public FlowIntake(
      List<FlowSink> sinks,
      DeadLetterSink deadLetters,
      IngestMetrics metrics,
      List<DroppedInputSink> droppedSinks) {
    this.sinks = List.copyOf(sinks);
    this.deadLetters = deadLetters;
    this.metrics = metrics;
    this.droppedSinks = List.copyOf(droppedSinks);
  }

  /**
   * Where the loss reports of the data plane go from now on (counted in the metrics either way).
   */
  public FlowIntake withLossSink(LossSink sink) {
    this.losses = sink;
    return this;
  }

  /**
   * As {@link #accept(String, ParseOutcome)}; a dropped record is also handed to the dropped sinks
   * with {@code input}, the provider record as text (rendered only if a sink is there).
   */
  public void accept(String source, ParseOutcome outcome, Supplier<String> input) {
    if (outcome.isDropped() && outcome.lostEvents() == 0) {
      for (DroppedInputSink sink : droppedSinks) {
        sink.dropped(source, outcome.dropReason(), input);
      }
    }
    accept(source, outcome);
  }

  /**
   * @param source the source tag for drop metrics ({@code hubble}, {@code goldmane}, {@code
   *     ztunnel}, {@code file})
   */
  public void accept(String source, ParseOutcome outcome) {
    if (outcome.lostEvents() > 0) {
      metrics.lostEvents(outcome.lostEvents());
      if (outcome.lossTime() != null) {
        losses.lost(outcome.lostEvents(), outcome.lossNode(), outcome.lossTime());
      }
    }
    if (outcome.nodeStatus() != null) {
      ParseOutcome.NodeStatus status = outcome.nodeStatus();
      for (String node : status.nodes()) {
        if (status.readable()) {
          losses.readable(node, status.at());
        } else {
          losses.unavailable(node, status.at());
        }
      }
    }
    if (outcome.isDropped()) {
      metrics.dropped(source, outcome.dropReason());
      return;
    }
    for (FlowRecord record : outcome.records()) {
      for (FlowSink sink : sinks) {
        sink.accept(record);
      }
      metrics.accepted(record.provider());
      published.incrementAndGet();
    }
  }

  /**
   * Blocks until every sink holds what it was handed (the flows topic acknowledged it); false when
   * a record was lost on the way since the last call, so that the sender sends it again.
   */
  public boolean settle() {
    boolean all = true;
    for (FlowSink sink : sinks) {
      all &= sink.settle();
    }
    return all;
  }

  /** Input that could not be decoded: kept in the dead-letter topic, counted, never fatal. */
  public void invalid(String source, String reason, byte[] payload, Throwable error) {
    metrics.badInput(source);
    deadLetters.deadLetter("ingest/" + source, reason, payload, error);
  }

  public void invalid(String source, String reason, String payload, Throwable error) {
    invalid(source, reason, payload.getBytes(StandardCharsets.UTF_8), error);
  }

  /**
   * Records handed to the sinks (the flows topic counts what Kafka acknowledged: flows.published).
   */
  public long publishedCount() {
    return published.get();
  }

  public IngestMetrics metrics() {
    return metrics;
  }
}
