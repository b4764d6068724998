package io.kubewarden.networkenforcer.writer.offsets;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The offsets a consumer may commit when records are done out of order: a record read but not done
 * pins its offset, and a partition's committed position advances only up to its first pinned offset
 * (else past the last record seen). Not thread-safe: its owner locks.
 */
public final class PinnedOffsets {
  /** Offsets of records read and not done yet, per partition. */
  private final Map<TopicPartition, TreeSet<Long>> pinned = new HashMap<>();

  /** Next offset after the last record seen, per partition. */
  private final Map<TopicPartition, Long> seen = new HashMap<>();

  private final Map<TopicPartition, Long> committed = new HashMap<>();

  /** A record to be done later: its offset stays pinned until {@link #release}. */
  public void pin(TopicPartition tp, long offset) {
    pinned.computeIfAbsent(tp, k -> new TreeSet<>()).add(offset);
    skip(tp, offset);
  }

  /** A record that needs nothing done: only moves the offset. */
  public void skip(TopicPartition tp, long offset) {
    // The first record read of a partition is where its committed position already is.
    committed.putIfAbsent(tp, offset);
    seen.merge(tp, offset + 1, Math::max);
  }

  /** The record at {@code offset} is done. */
  public void release(TopicPartition tp, long offset) {
    TreeSet<Long> offsets = pinned.get(tp);
    if (offsets != null) {
      offsets.remove(offset);
    }
  }

  /** Offsets that may be committed now and were not yet; call {@link #committed} once done. */
  public Map<TopicPartition, OffsetAndMetadata> committable() {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    seen.forEach(
        (tp, next) -> {
          TreeSet<Long> offsets = pinned.get(tp);
          long safe = offsets == null || offsets.isEmpty() ? next : offsets.first();
          if (safe > committed.getOrDefault(tp, -1L)) {
            out.put(tp, new OffsetAndMetadata(safe));
          }
        });
    return out;
  }

  public void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
    offsets.forEach((tp, o) -> committed.put(tp, o.offset()));
  }

  /** Partitions taken away: the next owner reads them again from the last commit. */
  public void drop(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      pinned.remove(tp);
      seen.remove(tp);
      committed.remove(tp);
    }
  }
}
