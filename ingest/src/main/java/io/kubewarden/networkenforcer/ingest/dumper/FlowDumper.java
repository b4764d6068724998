package io.kubewarden.networkenforcer.ingest.dumper;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.publishing.DroppedInputSink;
import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Keeps the latest flow records, and separately the latest dropped provider records with their
 * reason, in bounded ring buffers for debugging: when full, the oldest entry goes (and is counted).
 * {@link #drain()} and {@link #drainDropped()} hand everything out and empty the buffer.
 */
public final class FlowDumper implements FlowSink, DroppedInputSink {
  private final int capacity;
  private final ArrayDeque<FlowRecord> buffer;
  private final ArrayDeque<DroppedFlow> dropped;
  private final Clock clock;
  private long overwritten;

  public FlowDumper(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException(
          "flow dumper buffer size must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.buffer = new ArrayDeque<>(Math.min(capacity, 1024));
    this.dropped = new ArrayDeque<>(Math.min(capacity, 1024));
    this.clock = Clock.systemUTC();
  }

  @Override
  public void dropped(String source, DropReason reason, Supplier<String> input) {
    // Rendered outside the lock: the JSON printing of a provider record is the expensive part.
    DroppedFlow entry = new DroppedFlow(clock.instant(), source, reason.tag(), json(input.get()));
    synchronized (this) {
      if (dropped.size() == capacity) {
        dropped.pollFirst();
        overwritten++;
      }
      dropped.addLast(entry);
    }
  }

  public synchronized List<DroppedFlow> drainDropped() {
    List<DroppedFlow> all = new ArrayList<>(dropped);
    dropped.clear();
    return all;
  }

  private static JsonNode json(String text) {
    if (text == null) {
      return null;
    }
    String t = text.trim();
    if (t.startsWith("{")) {
      try {
        return Json.mapper().readTree(t);
      } catch (IOException e) {
        // Not JSON after all: shown as text.
      }
    }
    return TextNode.valueOf(text);
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
