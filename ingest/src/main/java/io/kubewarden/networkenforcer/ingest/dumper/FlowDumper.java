package io.kubewarden.networkenforcer.ingest.dumper;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the latest flow records in a bounded ring buffer for debugging: when full, the oldest
 * record is dropped (and counted). {@link #drain()} hands everything out and empties it.
 */
public final class FlowDumper implements FlowSink {
  private final int capacity;
  private final ArrayDeque<FlowRecord> buffer;
  private long overwritten;

  public FlowDumper(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("flow dumper buffer size must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.buffer = new ArrayDeque<>(Math.min(capacity, 1024));
  }

  @Override
  public synchronized void accept(FlowRecord record) {
    if (buffer.size() == capacity) {
      buffer.pollFirst();
      overwritten++;
    }
    buffer.addLast(record);
  }

  public synchronized List<FlowRecord> drain() {
    List<FlowRecord> all = new ArrayList<>(buffer);
    buffer.clear();
    return all;
  }

  /** Records pushed out of the full buffer before anyone read them. */
  public synchronized long overwritten() {
    return overwritten;
  }

  public int capacity() {
    return capacity;
  }
}
