package io.kubewarden.networkenforcer.ingest.publishing;

import java.time.Instant;

/** Where loss reports of the data plane go: the loss windows, a test list. */
@FunctionalInterface
public interface LossSink {
  LossSink NONE = (count, node, at) -> {};

  /** {@code count} events lost on {@code node} (null: the source does not say) at {@code at}. */
  void lost(long count, String node, Instant at);

  /**
   * The source can no longer read {@code node} since {@code at}: its flows are missed, uncounted.
   */
  default void unavailable(String node, Instant at) {}

  /** The source reads {@code node} again (or the node left the cluster) since {@code at}. */
  default void readable(String node, Instant at) {}
}
