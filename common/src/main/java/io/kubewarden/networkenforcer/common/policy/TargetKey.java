package io.kubewarden.networkenforcer.common.policy;

import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.util.Objects;

/**
 * One workload and one direction: what a proposal or policy is about. Its string form {@code
 * ns/Kind/name/Direction} keys the policies, control and proposals topics.
 */
public record TargetKey(WorkloadRef workload, Direction direction) {

  public TargetKey {
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(direction, "direction");
  }

  public String key() {
    return workload.key() + "/" + direction.name();
  }

  /** The proposal and policy name of this target, see {@link ObjectNames}. */
  public String objectName() {
    return ObjectNames.forTarget(this);
  }

  public String namespace() {
    return workload.namespace();
  }

  public static TargetKey parse(String key) {
    int slash = key == null ? -1 : key.lastIndexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("not a target key (want ns/Kind/name/Direction): " + key);
    }
    String dir = key.substring(slash + 1);
    Direction direction;
    try {
      direction = Direction.valueOf(dir);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "not a direction (want Ingress or Egress): " + dir + " in " + key);
    }
    return new TargetKey(WorkloadRef.parse(key.substring(0, slash)), direction);
  }

  @Override
  public String toString() {
    return key();
  }
}
