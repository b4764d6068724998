package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.writer.WriterService;
import java.util.function.BooleanSupplier;

/**
 * What Ready means for a writer replica. The leader is ready once its session runs with synced
 * informer caches: it can write what the processor sends. A standby consumes nothing, so "caught
 * up" has no meaning for it; it is ready while it takes part in the election and can take the
 * lease over. Were only the leader ready, a rolling update of the writer's Deployment would wait
 * forever for its new, standby pods.
 */
public final class WriterReadiness implements BooleanSupplier {
  private final WriterService writer;

  private WriterReadiness(WriterService writer) {
    this.writer = writer;
  }

  public static WriterReadiness of(WriterService writer) {
    return new WriterReadiness(writer);
  }

  @Override
  public boolean getAsBoolean() {
    return !writer.isLeader() || writer.cache().isPresent();
  }
}
