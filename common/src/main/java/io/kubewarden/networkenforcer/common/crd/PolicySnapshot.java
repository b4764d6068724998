package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.util.Objects;

/**
 * A WorkloadNetworkPolicy as the processor needs it, value of the compacted policies topic keyed by
 * target; a tombstone means the policy was deleted.
 *
 * @param generation the WNP's metadata.generation when it was published
 * @param promotedFrom the promoted-from label, null for a hand-made policy
 */
public record PolicySnapshot(
    String name,
    String namespace,
    WorkloadNetworkPolicySpec spec,
    long generation,
    String promotedFrom) {

  public PolicySnapshot {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(spec, "spec");
  }

  @JsonIgnore
  public Mode mode() {
    return spec.getMode() == null ? Mode.monitor : spec.getMode();
  }

  @JsonIgnore
  public Backend backend() {
    return spec.getBackend();
  }

  /** The target of the policy, from its spec. */
  @JsonIgnore
  public TargetKey target() {
    return new TargetKey(
        new WorkloadRef(namespace, spec.getTargetRef().getKind(), spec.getTargetRef().getName()),
        spec.getDirection());
  }
}
