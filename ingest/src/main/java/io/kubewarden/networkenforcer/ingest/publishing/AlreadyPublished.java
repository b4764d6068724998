package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * In front of the flows topic after a restart: drops the flows a resumed stream sends again that
 * the topic already holds. The resume asks the provider from a window and a margin before the
 * newest published flow (a SIGKILL loses the window being folded and may cut one being sent), so
 * the provider resends flows that did reach the topic. Each record found there (folded: an
 * identity, first and last seen, a count) takes back up to its count of resent flows of the same
 * identity seen within its times; what it does not cover goes on. Once every count is used up the
 * filter passes everything on. Identities are compared as the topic stores them: its encoding
 * leaves out pod names and service accounts, so a resent flow goes through it first.
 */
public final class AlreadyPublished implements FlowSink {
  private final FlowSink downstream;
  private final String source;
  private final IngestMetrics metrics;
  private final UnaryOperator<FlowRecord> asStored;
  private final Map<FlowRecord, List<Slot>> slots = new HashMap<>();

  /** The end of the newest record found: a flow seen after it is new, whatever its identity. */
  private final Instant newest;

  private long remaining;
  private long dropped;

  /**
   * @param published the provider's records in the flows topic from the resume point on
   * @param asStored a record as the flows topic gives it back (encoded and decoded)
   */
  public AlreadyPublished(
      FlowSink downstream,
      List<FlowRecord> published,
      UnaryOperator<FlowRecord> asStored,
      String source,
      IngestMetrics metrics) {
    this.downstream = downstream;
    this.source = source;
    this.metrics = metrics;
    this.asStored = asStored;
    Instant end = Instant.MIN;
    for (FlowRecord r : published) {
      end = r.lastSeen().isAfter(end) ? r.lastSeen() : end;
      slots
          .computeIfAbsent(FlowAggregator.timeless(r), k -> new ArrayList<>())
          .add(new Slot(r.firstSeen(), r.lastSeen(), r.count()));
      remaining += r.count();
    }
    this.newest = end;
  }

  @Override
  public void accept(FlowRecord record) {
    // Flows past the resumed span (all of them, soon after a restart) skip the lock and the
    // encoding a match needs: no slot can cover them.
    if (!record.lastSeen().isAfter(newest) && takeBack(record)) {
      metrics.dropped(source, DropReason.ALREADY_PUBLISHED);
      return;
    }
    downstream.accept(record);
  }

  private synchronized boolean takeBack(FlowRecord record) {
    if (remaining == 0) {
      return false;
    }
    List<Slot> candidates = slots.get(FlowAggregator.timeless(asStored.apply(record)));
    if (candidates == null) {
      return false;
    }
    for (Slot slot : candidates) {
      if (slot.covers(record)) {
        slot.left -= record.count();
        remaining -= record.count();
        dropped += record.count();
        if (remaining == 0) {
          slots.clear(); // nothing left to match: free the memory
        }
        return true;
      }
    }
    return false;
  }

  /** Flows dropped as already in the topic. */
  public synchronized long dropped() {
    return dropped;
  }

  @Override
  public boolean settle() {
    return downstream.settle();
  }

  private static final class Slot {
    private final Instant first;
    private final Instant last;
    private long left;

    Slot(Instant first, Instant last, long count) {
      this.first = first;
      this.last = last;
      this.left = count;
    }

    boolean covers(FlowRecord r) {
      return left >= r.count() && !r.firstSeen().isBefore(first) && !r.lastSeen().isAfter(last);
    }
  }
}
