package io.kubewarden.networkenforcer.ingest.goldmane;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Goldmane reports an allowed connection once from each end (reporter Src on the client's node, Dst
 * on the server's node), in either order, and only one of them when the other end is not running
 * Calico or its report was lost. The first report of a connection in an aggregation interval is the
 * flow; the other end's report of the same interval is a duplicate. Bounded: the oldest keys go
 * first.
 */
final class ReportPairing {
  private final int capacity;
  private final LinkedHashMap<String, Boolean> seen;

  ReportPairing(int capacity) {
    this.capacity = capacity;
    this.seen =
        new LinkedHashMap<>(1024, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > ReportPairing.this.capacity;
          }
        };
  }

  /** True for the first report of this connection and interval, false for the other end's copy. */
  synchronized boolean firstReport(String connectionAndInterval) {
    return seen.putIfAbsent(connectionAndInterval, Boolean.TRUE) == null;
  }
}
