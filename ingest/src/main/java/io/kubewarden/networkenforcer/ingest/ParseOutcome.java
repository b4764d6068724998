package io.kubewarden.networkenforcer.ingest;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import java.util.List;
import java.util.Objects;

/**
 * What one provider record turned into: flow records, or the reason it was dropped. Lost events
 * reported by Hubble travel along so the caller can count them.
 */
public record ParseOutcome(List<FlowRecord> records, DropReason dropReason, long lostEvents) {

  public ParseOutcome {
    records = records == null ? List.of() : List.copyOf(records);
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

  public boolean isDropped() {
    return dropReason != null;
  }
}
