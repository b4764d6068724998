package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import io.kubewarden.networkenforcer.writer.offsets.PinnedOffsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Observations read but not yet written to a status, per policy, and the Kafka offsets they pin: a
 * partition's offset may only advance past records whose status write succeeded. The consumer
 * thread adds and commits; the policy reconcilers take and release, so every method locks.
 */
public final class ViolationBuffer {

  private record Pending(TopicPartition partition, long offset, ViolationObservation observation) {}

  private final Map<String, List<Pending>> byPolicy = new LinkedHashMap<>();

  /** The offsets of buffered records are pinned. */
  private final PinnedOffsets offsets = new PinnedOffsets();

  /** Policies whose observations are due for a status write (the sync interval passed). */
  private final Set<String> due = new LinkedHashSet<>();

  private int size;

  public synchronized void add(TopicPartition tp, long offset, ViolationObservation o) {
    byPolicy.computeIfAbsent(o.policyKey(), k -> new ArrayList<>()).add(new Pending(tp, offset, o));
    offsets.pin(tp, offset);
    size++;
  }

  /**
   * A record that needs no status write (dead-lettered, or merged already): only moves the offset.
   */
  public synchronized void skip(TopicPartition tp, long offset) {
    offsets.skip(tp, offset);
  }

  public synchronized Set<String> policies() {
    return new LinkedHashSet<>(byPolicy.keySet());
  }

  public synchronized List<SourcedObservation> observations(String policyKey) {
    List<Pending> p = byPolicy.get(policyKey);
    return p == null
        ? List.of()
        : p.stream()
            .map(
                x ->
                    new SourcedObservation(
                        x.partition().topic(),
                        x.partition().partition(),
                        x.offset(),
                        x.observation()))
            .toList();
  }

  /** Marks every buffered policy due for a status write; returns them. */
  public synchronized Set<String> markAllDue() {
    due.addAll(byPolicy.keySet());
    return new LinkedHashSet<>(due);
  }

  /**
   * The observations of a policy if they are due for a write (else none: they wait for the
   * interval).
   */
  public synchronized List<SourcedObservation> dueObservations(String policyKey) {
    return due.contains(policyKey) ? observations(policyKey) : List.of();
  }

  /** These observations are in the status (or were dropped): release their offsets. */
  public synchronized void written(String policyKey, Collection<SourcedObservation> taken) {
    List<Pending> p = byPolicy.get(policyKey);
    if (p == null) {
      return;
    }
    Set<String> places = new HashSet<>();
    taken.forEach(o -> places.add(o.topic() + "/" + o.partition() + "/" + o.offset()));
    int before = p.size();
    p.removeIf(
        x -> {
          boolean gone =
              places.contains(
                  x.partition().topic() + "/" + x.partition().partition() + "/" + x.offset());
          if (gone) {
            offsets.release(x.partition(), x.offset());
          }
          return gone;
        });
    size -= before - p.size();
    if (p.isEmpty()) {
      byPolicy.remove(policyKey);
      due.remove(policyKey);
    }
  }

  /** All of a policy's observations are written or dropped. */
  public synchronized void written(String policyKey) {
    written(policyKey, observations(policyKey));
  }

  /** Offsets that may be committed now and were not yet; call {@link #committed} once done. */
  public synchronized Map<TopicPartition, OffsetAndMetadata> committable() {
    return offsets.committable();
  }

  public synchronized void committed(Map<TopicPartition, OffsetAndMetadata> committed) {
    offsets.committed(committed);
  }

  /**
   * Partitions taken away: forget their records, the next owner reads them again from the last
   * commit.
   */
  public synchronized void dropPartitions(Collection<TopicPartition> partitions) {
    offsets.drop(partitions);
    byPolicy
        .values()
        .forEach(
            list ->
                size -=
                    (int) list.stream().filter(p -> partitions.contains(p.partition())).count());
    byPolicy.values().forEach(list -> list.removeIf(p -> partitions.contains(p.partition())));
    byPolicy.values().removeIf(List::isEmpty);
    due.retainAll(byPolicy.keySet());
  }

  public synchronized int size() {
    return size;
  }
}
