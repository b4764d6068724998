package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Observations read but not yet written to a status, per policy, and the Kafka offsets they pin:
 * a partition's offset may only advance past records whose status write succeeded. Used by the
 * consumer thread only.
 */
public final class ViolationBuffer {

  private record Pending(TopicPartition partition, long offset, ViolationObservation observation) {}

  private final Map<String, List<Pending>> byPolicy = new LinkedHashMap<>();
  /** Offsets of buffered records, per partition. */
  private final Map<TopicPartition, TreeSet<Long>> pinned = new HashMap<>();
  /** Next offset after the last record seen, per partition. */
  private final Map<TopicPartition, Long> seen = new HashMap<>();
  private final Map<TopicPartition, Long> committed = new HashMap<>();
  private int size;

  public void add(TopicPartition tp, long offset, ViolationObservation o) {
    byPolicy.computeIfAbsent(o.policyKey(), k -> new ArrayList<>()).add(new Pending(tp, offset, o));
    pinned.computeIfAbsent(tp, k -> new TreeSet<>()).add(offset);
    startAt(tp, offset);
    seen.merge(tp, offset + 1, Math::max);
    size++;
  }

  /** A record that needs no status write (sent to the dead-letter topic): only moves the offset. */
  public void skip(TopicPartition tp, long offset) {
    startAt(tp, offset);
    seen.merge(tp, offset + 1, Math::max);
  }

  /** The first record read of a partition is where its committed position already is. */
  private void startAt(TopicPartition tp, long offset) {
    committed.putIfAbsent(tp, offset);
  }

  public Set<String> policies() {
    return byPolicy.keySet();
  }

  public List<ViolationObservation> observations(String policyKey) {
    List<Pending> p = byPolicy.get(policyKey);
    return p == null ? List.of() : p.stream().map(Pending::observation).toList();
  }

  /** The policy's observations are in its status (or were dropped): release their offsets. */
  public void written(String policyKey) {
    List<Pending> p = byPolicy.remove(policyKey);
    if (p == null) {
      return;
    }
    for (Pending x : p) {
      TreeSet<Long> offsets = pinned.get(x.partition());
      if (offsets != null) {
        offsets.remove(x.offset());
      }
    }
    size -= p.size();
  }

  /** Offsets that may be committed now and were not yet; call {@link #committed} once done. */
  public Map<TopicPartition, OffsetAndMetadata> committable() {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    seen.forEach((tp, next) -> {
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

  /** Partitions taken away: forget their records, the next owner reads them again from the last commit. */
  public void dropPartitions(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      pinned.remove(tp);
      seen.remove(tp);
      committed.remove(tp);
    }
    byPolicy.values().forEach(list -> size -= (int) list.stream().filter(p -> partitions.contains(p.partition()))
        .count());
    byPolicy.values().forEach(list -> list.removeIf(p -> partitions.contains(p.partition())));
    byPolicy.values().removeIf(List::isEmpty);
  }

  public int size() {
    return size;
  }
}
