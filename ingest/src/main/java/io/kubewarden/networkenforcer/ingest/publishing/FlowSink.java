package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;

/** Where normalized flow records go: the flows topic, the flow dumper, a test list. */
@FunctionalInterface
public interface FlowSink {
  void accept(FlowRecord record);

  /**
   * Blocks until every record accepted so far is where this sink puts it (Kafka acknowledged it);
   * false when one of them could not be put there since the last call. In-memory sinks are settled
   * at once.
   */
  default boolean settle() {
    return true;
  }
}
