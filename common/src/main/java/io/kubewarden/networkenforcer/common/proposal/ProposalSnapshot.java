package io.kubewarden.networkenforcer.common.proposal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The complete learned proposal of one target, value of the compacted proposals topic (a
 * tombstone means: the proposal was reset). The spec is in the exact CRD shape.
 *
 * @param evidence per rule and port: first seen, last seen, count (written to the WNPP status)
 * @param updatedAt when the processor last changed the allow-list or flushed evidence
 * @param convergence the {@code Converged} condition; null from processors before it existed
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProposalSnapshot(String name, String namespace, WorkloadNetworkPolicyProposalSpec spec,
    List<RuleEvidence> evidence, Instant updatedAt, Convergence convergence) {

  public ProposalSnapshot(String name, String namespace, WorkloadNetworkPolicyProposalSpec spec,
      List<RuleEvidence> evidence, Instant updatedAt) {
    this(name, namespace, spec, evidence, updatedAt, null);
  }

  public ProposalSnapshot {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(spec, "spec");
    evidence = evidence == null ? List.of() : List.copyOf(evidence);
  }

  /** The target this proposal is for, from its spec. */
  @JsonIgnore
  public TargetKey target() {
    return new TargetKey(new WorkloadRef(namespace, spec.getTargetRef().getKind(), spec.getTargetRef().getName()),
        spec.getDirection());
  }
}
