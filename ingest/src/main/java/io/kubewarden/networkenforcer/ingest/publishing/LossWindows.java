package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
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
 */
public final class LossWindows implements LossSink, AutoCloseable {
  private final Provider provider;
  private final Consumer<DataPlaneLoss> downstream;
  private final ScheduledExecutorService timer;
  /** By node ("" when the source does not say): the loss of the open window. */
  private Map<String, DataPlaneLoss> open = new LinkedHashMap<>();

  public LossWindows(Provider provider, Duration window, Consumer<DataPlaneLoss> downstream) {
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
      open.merge(node == null ? "" : node, report, DataPlaneLoss::plus);
    }
  }

  /** Passes on the loss of the open window now. */
  public void flush() {
    List<DataPlaneLoss> out;
    synchronized (this) {
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
