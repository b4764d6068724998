package io.kubewarden.networkenforcer.writer.observations;

import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * An observation with the place it was read from: topic, partition, offset. The place is what makes
 * merging idempotent (the status keeps a watermark per partition) and what the stable event id is
 * derived from. {@code topic} is null for an observation of no topic (unit tests): it is always
 * merged.
 */
public record SourcedObservation(
    String topic, int partition, long offset, ViolationObservation observation) {

  public static SourcedObservation unsourced(ViolationObservation o) {
    return new SourcedObservation(null, 0, -1, o);
  }

  public static List<SourcedObservation> unsourced(List<ViolationObservation> observations) {
    return observations.stream().map(SourcedObservation::unsourced).toList();
  }

  public boolean sourced() {
    return topic != null;
  }

  /**
   * The id of this record's {@code policy_violation_observed} event: the same for every writer that
   * ever reads this record (a name-based UUID of topic, partition and offset), so a collector can
   * drop a repeat.
   */
  public String eventId() {
    String place =
        sourced()
            ? topic + "/" + partition + "/" + offset
            : observation.policyKey()
                + "/"
                + observation.timestamp()
                + "/"
                + System.identityHashCode(observation);
    return UUID.nameUUIDFromBytes(place.getBytes(StandardCharsets.UTF_8)).toString();
  }

  /** The id of the {@code n}th event (from 0) of a record that stands for several observations. */
  public String eventId(long n) {
    return n == 0
        ? eventId()
        : UUID.nameUUIDFromBytes((eventId() + "#" + n).getBytes(StandardCharsets.UTF_8)).toString();
  }
}
