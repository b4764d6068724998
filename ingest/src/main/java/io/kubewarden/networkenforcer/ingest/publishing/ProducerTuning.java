package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.time.Duration;
import java.util.Set;

/**
 * How the flows producer batches, compresses and aggregates.
 *
 * @param compression {@code lz4} (default: cheap on CPU), {@code zstd}, {@code gzip}, {@code
 *     snappy} or {@code none}
 * @param linger how long a batch may wait to fill
 * @param batchSizeBytes the largest batch per partition
 * @param aggregationWindow repeated flows are folded into one record per window before they are
 *     published ({@link FlowAggregator}); 0 publishes every flow as it comes
 * @param aggregationMaxFlows different flows that may wait in a window; when reached, the window is
 *     published early
 */
public record ProducerTuning(
    String compression,
    Duration linger,
    int batchSizeBytes,
    Duration aggregationWindow,
    int aggregationMaxFlows) {
  private static final Set<String> COMPRESSIONS = Set.of("lz4", "zstd", "gzip", "snappy", "none");
  public static final Duration DEFAULT_AGGREGATION_WINDOW = Duration.ofSeconds(5);
  public static final Duration MAX_AGGREGATION_WINDOW = Duration.ofMinutes(1);
  public static final int DEFAULT_AGGREGATION_MAX_FLOWS = 50_000;

  /** Batching and compression as given, aggregation with its defaults. */
  public ProducerTuning(String compression, Duration linger, int batchSizeBytes) {
    this(
        compression,
        linger,
        batchSizeBytes,
        DEFAULT_AGGREGATION_WINDOW,
        DEFAULT_AGGREGATION_MAX_FLOWS);
  }

  public static ProducerTuning defaults() {
    return new ProducerTuning("lz4", Duration.ofMillis(20), 64 * 1024);
  }

  public ProducerTuning withAggregationWindow(Duration window) {
    return new ProducerTuning(compression, linger, batchSizeBytes, window, aggregationMaxFlows);
  }

  public ProducerTuning validate() {
    if (!COMPRESSIONS.contains(compression)) {
      throw new ConfigException(
          "ingest producer compression '" + compression + "' is not one of " + COMPRESSIONS);
    }
    if (linger.isNegative() || linger.compareTo(Duration.ofSeconds(5)) > 0) {
      throw new ConfigException("ingest producer linger " + linger + " must be between 0 and 5s");
    }
    if (batchSizeBytes < 1024) {
      throw new ConfigException(
          "ingest producer batch size " + batchSizeBytes + " must be at least 1024 bytes");
    }
    if (aggregationWindow == null
        || aggregationWindow.isNegative()
        || aggregationWindow.compareTo(MAX_AGGREGATION_WINDOW) > 0) {
      throw new ConfigException(
          "ingest aggregation window "
              + aggregationWindow
              + " must be between 0 (off) and "
              + MAX_AGGREGATION_WINDOW.toSeconds()
              + "s; flows wait that long before they are published");
    }
    if (aggregationMaxFlows < 1) {
      throw new ConfigException(
          "ingest aggregation must hold at least 1 flow, got " + aggregationMaxFlows);
    }
    return this;
  }
}
