package io.kubewarden.networkenforcer.common.workload;

import java.util.Objects;

/**
 * One Deployment, StatefulSet or DaemonSet. Its string form {@code ns/Kind/name} is the key of the
 * flows topic.
 */
public record WorkloadRef(String namespace, WorkloadKind kind, String name) {

  public WorkloadRef {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
  }

  /** {@code ns/Kind/name}. */
  public String key() {
    return namespace + "/" + kind.name() + "/" + name;
  }

  /** Parses {@link #key()}. */
  public static WorkloadRef parse(String key) {
    String[] parts = key == null ? new String[0] : key.split("/", -1);
    if (parts.length != 3 || parts[0].isEmpty() || parts[2].isEmpty()) {
      throw new IllegalArgumentException("not a workload key (want ns/Kind/name): " + key);
    }
    WorkloadKind kind =
        WorkloadKind.fromKind(parts[1])
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "not a workload kind: " + parts[1] + " in " + key));
    return new WorkloadRef(parts[0], kind, parts[2]);
  }

  @Override
  public String toString() {
    return key();
  }
}
