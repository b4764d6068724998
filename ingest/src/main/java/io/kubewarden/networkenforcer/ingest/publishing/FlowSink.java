package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;

/** Where normalized flow records go: the flows topic, the flow dumper, a test list. */
@FunctionalInterface
public interface FlowSink {
  void accept(FlowRecord record);
}
