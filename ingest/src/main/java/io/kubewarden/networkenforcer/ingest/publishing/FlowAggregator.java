package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Aggregation at the edge: folds repeated flows into one record per window before they are
 * published, as Goldmane does with its 15 s windows. Two flows fold when they differ only in time
 * and count (same source and destination workload and pod, port, protocol, verdict, reporter,
 * denying policy, provider, HTTP request): the folded record has the earliest time, the latest
 * {@link FlowRecord#lastSeen()} and the summed count, so learning and violations count the same.
 * Pods of one workload stay apart: monitor-mode evaluation reads the peer pod's labels and IP.
 *
 * <p>Records leave every {@code window} (a timer), when {@code maxPending} different flows wait
 * (memory stays bounded under any load), and on {@link #flush()}/{@link #close()}. A window of 0
 * passes every record on at once. Thread-safe: sources call {@link #accept} from their own threads.
 */
public final class FlowAggregator implements FlowSink, AutoCloseable {
  private final FlowSink downstream;
  private final Duration window;
  private final int maxPending;
  private final ScheduledExecutorService timer;
  private Map<FlowRecord, FlowRecord> pending = new HashMap<>();

  public FlowAggregator(FlowSink downstream, Duration window, int maxPending) {
    if (window.isNegative()) {
      throw new IllegalArgumentException(
          "aggregation window must be 0 (off) or positive, got " + window);
    }
    if (maxPending < 1) {
      throw new IllegalArgumentException(
          "aggregation needs room for at least one flow, got " + maxPending);
    }
    this.downstream = downstream;
    this.window = window;
    this.maxPending = maxPending;
    timer = WindowTimer.every(window, "flow-aggregation", this::flush);
  }

  public Duration window() {
    return window;
  }

  @Override
  public void accept(FlowRecord record) {
    if (timer == null) {
      downstream.accept(record);
      return;
    }
    FlowRecord key = timeless(record);
    List<FlowRecord> full = null;
    synchronized (this) {
      FlowRecord before = pending.get(key);
      pending.put(key, before == null ? record : before.plus(record));
      if (pending.size() >= maxPending) {
        full = take();
      }
    }
    if (full != null) {
      full.forEach(downstream::accept);
    }
  }

  /** Passes on every folded record now. */
  public void flush() {
    List<FlowRecord> out;
    synchronized (this) {
      out = take();
    }
    out.forEach(downstream::accept);
  }

  /** Passes on what waits, then settles downstream: a sender answered after this lost nothing. */
  @Override
  public boolean settle() {
    flush();
    return downstream.settle();
  }

  /** Flows waiting to be passed on. */
  public synchronized int pendingCount() {
    return pending.size();
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdown();
      try {
        timer.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    flush();
  }

  private List<FlowRecord> take() {
    if (pending.isEmpty()) {
      return List.of();
    }
    List<FlowRecord> out = new ArrayList<>(pending.values());
    pending = new HashMap<>();
    return out;
  }

  /**
   * A record's identity: everything but its times and count (what folds, and what a resume
   * matches).
   */
  static FlowRecord timeless(FlowRecord r) {
    return r.withTimes(Instant.EPOCH, 1, Instant.EPOCH);
  }
}
