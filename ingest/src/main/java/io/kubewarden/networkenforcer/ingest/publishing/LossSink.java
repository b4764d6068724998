package io.kubewarden.networkenforcer.ingest.publishing;

import java.time.Instant;

/** Where loss reports of the data plane go: the loss windows, a test list. */
@FunctionalInterface
public interface LossSink {
  LossSink NONE = (count, node, at) -> {};

  /** {@code count} events lost on {@code node} (null: the source does not say) at {@code at}. */
  void lost(long count, String node, Instant at);
}
