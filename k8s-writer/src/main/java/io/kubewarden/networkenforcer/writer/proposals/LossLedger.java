package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.crd.LostEvents;
import io.kubewarden.networkenforcer.common.flow.Counts;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the leader knows of the data plane's loss: every window of the {@code data-plane-loss} topic
 * read in this session (the topic is read from its beginning at each leader start, so a window is
 * counted once whoever leads). Windows that ended more than a quiet period ago no longer hold
 * anything back and are forgotten; the end of the latest loss is kept, since a proposal converges
 * no earlier than a quiet period after it. Thread-safe: the loss consumer adds, reconcilers read.
 */
public final class LossLedger {
  /** The loss that holds proposals back at one moment. */
  public record Hold(
      List<LostEvents> lostEvents,
      long total,
      Instant firstLost,
      Instant lastLost,
      Instant until) {}

  private final Duration quietPeriod;
  private final List<DataPlaneLoss> windows = new ArrayList<>();
  private Instant latestLoss;

  public LossLedger(Duration quietPeriod) {
    this.quietPeriod = quietPeriod;
  }

  public Duration quietPeriod() {
    return quietPeriod;
  }

  /**
   * A window of loss; one that missed nothing (no events reported lost, the node readable) changes
   * nothing.
   */
  public synchronized void add(DataPlaneLoss loss) {
    if (!loss.missedFlows()) {
      return;
    }
    windows.add(loss);
    if (latestLoss == null || loss.to().isAfter(latestLoss)) {
      latestLoss = loss.to();
    }
  }

  /** The end of the latest loss seen, if any. */
  public synchronized Optional<Instant> latestLoss() {
    return Optional.ofNullable(latestLoss);
  }

  /**
   * The loss within the quiet period before {@code now}, summed per provider and node; empty when a
   * quiet period without loss has passed.
   */
  public synchronized Optional<Hold> holdAt(Instant now) {
    Instant horizon = now.minus(quietPeriod);
    windows.removeIf(w -> !w.to().isAfter(horizon));
    if (windows.isEmpty()) {
      return Optional.empty();
    }
    Map<String, DataPlaneLoss> byNode = new TreeMap<>();
    for (DataPlaneLoss w : windows) {
      byNode.merge(w.key(), w, DataPlaneLoss::plus);
    }
    List<LostEvents> entries = new ArrayList<>();
    long total = 0;
    Instant first = null;
    Instant last = null;
    for (DataPlaneLoss l : byNode.values()) {
      entries.add(
          new LostEvents(
              l.provider().name(),
              l.node(),
              l.lostEvents(),
              text(l.from()),
              text(l.to()),
              l.unavailable()));
      total =
          Counts.sum(
              total, l.lostEvents()); // the counts of records: may be anything up to Long.MAX_VALUE
      first = first == null || l.from().isBefore(first) ? l.from() : first;
      last = last == null || l.to().isAfter(last) ? l.to() : last;
    }
    return Optional.of(new Hold(List.copyOf(entries), total, first, last, last.plus(quietPeriod)));
  }

  static String text(Instant t) {
    return DateTimeFormatter.ISO_INSTANT.format(t);
  }
}
