package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.writer.offsets.PinnedOffsets;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What the proposals topic wants, per proposal: the latest snapshot (or tombstone) read and not yet
 * applied. A newer record of the same proposal replaces an older one (snapshots are complete), so
 * events for one key coalesce. An offset stays pinned until the reconciler applied its record (or
 * parked it on the dead-letter topic), so nothing read is lost in a hand-over. The consumer thread
 * adds and commits; reconcilers take and release.
 */
public final class DesiredProposals {

  /** One record's wish for a proposal; {@code snapshot} null = reset (delete the proposal). */
  public record Desired(
      TopicPartition partition,
      long offset,
      ProposalSnapshot snapshot,
      ConsumerRecord<String, byte[]> record) {
    public boolean tombstone() {
      return snapshot == null;
    }
  }

  private final Map<ObjectKey, Desired> byKey = new HashMap<>();

  /**
   * The latest record of each key was a tombstone: a delete of that proposal is the writer's own.
   */
  private final Map<ObjectKey, Long> resets = new HashMap<>();

  private final PinnedOffsets offsets = new PinnedOffsets();

  public synchronized void put(ObjectKey key, Desired d) {
    Desired older = byKey.put(key, d);
    if (older != null) {
      unpin(older);
    }
    offsets.pin(d.partition(), d.offset());
    if (d.tombstone()) {
      resets.put(key, d.offset());
    } else {
      resets.remove(key);
    }
  }

  /** A record that wants nothing (unreadable and dead-lettered): only moves the offset. */
  public synchronized void skip(TopicPartition tp, long offset) {
    offsets.skip(tp, offset);
  }

  public synchronized Optional<Desired> peek(ObjectKey key) {
    return Optional.ofNullable(byKey.get(key));
  }

  /** Whether the topic's latest word on this proposal is a reset. */
  public synchronized boolean resetByTopic(ObjectKey key) {
    return resets.containsKey(key);
  }

  /** The record is applied (or parked): release it unless a newer one replaced it meanwhile. */
  public synchronized void done(ObjectKey key, Desired d) {
    if (byKey.get(key) == d) {
      byKey.remove(key);
    }
    unpin(d);
  }

  private void unpin(Desired d) {
    offsets.release(d.partition(), d.offset());
  }

  public synchronized Map<TopicPartition, OffsetAndMetadata> committable() {
    return offsets.committable();
  }

  public synchronized void committed(Map<TopicPartition, OffsetAndMetadata> committed) {
    offsets.committed(committed);
  }

  public synchronized void dropPartitions(Collection<TopicPartition> partitions) {
    byKey.values().removeIf(d -> partitions.contains(d.partition()));
    offsets.drop(partitions);
  }

  public synchronized int size() {
    return byKey.size();
  }
}
