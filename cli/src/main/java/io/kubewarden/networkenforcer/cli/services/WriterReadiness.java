package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.writer.WriterService;
import java.util.function.BooleanSupplier;

/**
 * What Ready means for a writer replica. The leader is ready once its session runs with synced
 * informer caches: it can write what the processor sends. A standby consumes nothing, so "caught
 * up" has no meaning for it; it is ready once it has seen another writer hold the lease: it takes
 * part in the election and can take over. Were only the leader ready, a rolling update of the
 * writer's Deployment would wait forever for its new, standby pods. Before its first look at the
 * lease a writer is neither, and not ready.
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
    return writer.isLeader() ? writer.cache().isPresent() : writer.isStandby();
  }
}
