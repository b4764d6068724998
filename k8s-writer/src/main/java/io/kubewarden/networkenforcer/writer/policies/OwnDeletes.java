package io.kubewarden.networkenforcer.writer.policies;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Proposals this writer deleted itself (promotion, leftovers, tombstones). Their delete events must
 * not be mistaken for a person's delete, which would reset learning. Marks expire, so a later
 * delete by hand of a re-created proposal is still seen.
 */
public final class OwnDeletes {
  private final Map<String, Instant> marks = new ConcurrentHashMap<>();
  private final Duration ttl;
  private final Clock clock;

  public OwnDeletes(Duration ttl, Clock clock) {
    this.ttl = ttl;
    this.clock = clock;
  }

  /** Call before deleting. */
  public void mark(String namespace, String name) {
    marks.put(namespace + "/" + name, clock.instant().plus(ttl));
  }

  /** The delete did not happen after all. */
  public void forget(String namespace, String name) {
    marks.remove(namespace + "/" + name);
  }

  /** Call on the delete event: true when we deleted it (the mark is used up). */
  public boolean consume(String namespace, String name) {
    Instant until = marks.remove(namespace + "/" + name);
    marks.values().removeIf(t -> t.isBefore(clock.instant()));
    return until != null && !until.isBefore(clock.instant());
  }
}
