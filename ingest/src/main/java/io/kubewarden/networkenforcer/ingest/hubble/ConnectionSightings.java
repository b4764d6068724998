package io.kubewarden.networkenforcer.ingest.hubble;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers recently seen connections (5-tuple and verdict) for a short window. Hubble reports one
 * connection many times: at the source's egress and the destination's ingress, for the SYN and the
 * first ACK, and for a deny both as a policy verdict and as a drop. Counting each of those would
 * inflate evidence and violation counts; within the window a connection counts once. Bounded: the
 * oldest entries go first.
 */
final class ConnectionSightings {
  private final Duration window;
  private final int capacity;
  private final LinkedHashMap<String, Instant> seen;

  ConnectionSightings(Duration window, int capacity) {
    this.window = window;
    this.capacity = capacity;
    this.seen =
        new LinkedHashMap<>(1024, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
            return size() > ConnectionSightings.this.capacity;
          }
        };
  }

  /** True when the connection was counted within the window of {@code time}; remembers nothing. */
  synchronized boolean counted(String connection, Instant time) {
    Instant last = seen.get(connection);
    return last != null && !time.isAfter(last.plus(window)) && !time.isBefore(last.minus(window));
  }

  /**
   * True the first time a connection is seen within the window (by flow time, so replays agree).
   */
  synchronized boolean firstSighting(String connection, Instant time) {
    if (counted(connection, time)) {
      return false;
    }
    seen.remove(connection);
    seen.put(connection, time);
    return true;
  }
}
