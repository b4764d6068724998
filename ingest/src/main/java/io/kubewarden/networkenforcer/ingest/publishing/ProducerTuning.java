package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.time.Duration;
import java.util.Set;

/**
 * How the flows producer batches and compresses.
 *
 * @param compression {@code lz4} (default: cheap on CPU), {@code zstd}, {@code gzip}, {@code snappy} or
 *     {@code none}
 * @param linger how long a batch may wait to fill
 * @param batchSizeBytes the largest batch per partition
 */
public record ProducerTuning(String compression, Duration linger, int batchSizeBytes) {
  private static final Set<String> COMPRESSIONS = Set.of("lz4", "zstd", "gzip", "snappy", "none");

  public static ProducerTuning defaults() {
    return new ProducerTuning("lz4", Duration.ofMillis(20), 64 * 1024);
  }

  public ProducerTuning validate() {
    if (!COMPRESSIONS.contains(compression)) {
      throw new ConfigException("ingest producer compression '" + compression + "' is not one of " + COMPRESSIONS);
    }
    if (linger.isNegative() || linger.compareTo(Duration.ofSeconds(5)) > 0) {
      throw new ConfigException("ingest producer linger " + linger + " must be between 0 and 5s");
    }
    if (batchSizeBytes < 1024) {
      throw new ConfigException("ingest producer batch size " + batchSizeBytes + " must be at least 1024 bytes");
    }
    return this;
  }
}
