package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Counts the loss reports of one provider per node and window (the ingest's aggregation window):
 * every window with loss becomes one {@link DataPlaneLoss} with the exact sum of the events
 * reported lost. A window of 0 passes every report on at once. Windows leave on the timer and on
 * {@link #flush()}/{@link #close()}, so nothing counted is kept back at shutdown. Thread-safe.
 *
 * <p>A node the source cannot read (Hubble Relay: unavailable, in error) is a loss nobody counts:
 * every window while it lasts leaves as a record marked {@code nodeUnavailable} for that node, up
 * to the flush, and the last one up to the moment the node is readable again, so the writer holds
 * proposals for as long as the blind spot lasts and a quiet period after.
 */
public final class LossWindows implements LossSink, AutoCloseable {
  private final Provider provider;
  private final Consumer<DataPlaneLoss> downstream;
  private final ScheduledExecutorService timer;

  /** By node ("" when the source does not say): the loss of the open window. */
  private Map<String, DataPlaneLoss> open = new LinkedHashMap<>();

  /** Nodes that cannot be read, with the start of their time not yet passed on. */
  private final Map<String, Instant> unreadableSince = new LinkedHashMap<>();

  private final Clock clock;

  public LossWindows(Provider provider, Duration window, Consumer<DataPlaneLoss> downstream) {
    this(provider, window, downstream, Clock.systemUTC());
  }

  /**
   * @param clock ends the windows of a node that is still unreadable when they leave
   */
  public LossWindows(
      Provider provider, Duration window, Consumer<DataPlaneLoss> downstream, Clock clock) {
    this.clock = clock;
    if (window.isNegative()) {
      throw new IllegalArgumentException("loss window must be 0 (off) or positive, got " + window);
    }
    this.provider = Objects.requireNonNull(provider);
    this.downstream = downstream;
    timer = WindowTimer.every(window, "loss-windows", this::flush);
  }

  @Override
  public void lost(long count, String node, Instant at) {
    DataPlaneLoss report = new DataPlaneLoss(provider, node, at, at, count, 1);
    if (timer == null) {
      downstream.accept(report);
      return;
    }
    synchronized (this) {
      open.merge(keyOf(node), report, DataPlaneLoss::plus);
    }
  }

  /** Windows and blind spots are kept by node, "" when the source does not say which. */
  private static String keyOf(String node) {
    return node == null ? "" : node;
  }

  @Override
  public void unavailable(String node, Instant at) {
    boolean started;
    synchronized (this) {
      started = unreadableSince.putIfAbsent(keyOf(node), at) == null;
    }
    if (started && timer == null) {
      downstream.accept(DataPlaneLoss.unavailable(provider, node, at, at));
    }
  }

  @Override
  public void readable(String node, Instant at) {
    DataPlaneLoss last;
    synchronized (this) {
      Instant since = unreadableSince.remove(keyOf(node));
      if (since == null) {
        return;
      }
      last = DataPlaneLoss.unavailable(provider, node, since, at.isBefore(since) ? since : at);
      if (timer != null) {
        open.merge(keyOf(node), last, DataPlaneLoss::plus);
        return;
      }
    }
    downstream.accept(last);
  }

  /**
   * Passes on the loss of the open window now, and the time so far of every node still unreadable.
   */
  public void flush() {
    List<DataPlaneLoss> out;
    synchronized (this) {
      Instant now = clock.instant();
      for (Map.Entry<String, Instant> e : unreadableSince.entrySet()) {
        Instant since = e.getValue();
        Instant to = now.isBefore(since) ? since : now;
        String node = e.getKey().isEmpty() ? null : e.getKey();
        open.merge(
            e.getKey(), DataPlaneLoss.unavailable(provider, node, since, to), DataPlaneLoss::plus);
        e.setValue(to);
      }
      if (open.isEmpty()) {
        return;
      }
      out = new ArrayList<>(open.values());
      open = new LinkedHashMap<>();
    }
    out.forEach(downstream);
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
}
