package io.kubewarden.networkenforcer.common.proposal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The complete learned proposal of one target, value of the compacted proposals topic (a tombstone
 * means: the proposal was reset). The spec is in the exact CRD shape.
 *
 * @param evidence per rule and port: first seen, last seen, count (written to the WNPP status)
 * @param updatedAt when the processor last changed the allow-list or flushed evidence
 * @param inferredWorkloads the target or peer workloads ({@code ns/Kind/name}) whose kind, name and
 *     selector were inferred from pod names and labels; rendered as the {@link
 *     io.kubewarden.networkenforcer.common.policy.Labels#INFERRED_WORKLOADS} annotation
 * @param annotations put on the WNPP by the writer; empty for live learning ({@code replay
 *     --publish} names its window here)
 * @param convergence the {@code Converged} condition; null from processors before it existed
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProposalSnapshot(
    String name,
    String namespace,
    WorkloadNetworkPolicyProposalSpec spec,
    List<RuleEvidence> evidence,
    Instant updatedAt,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> inferredWorkloads,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> annotations,
    Convergence convergence) {

  public ProposalSnapshot {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(spec, "spec");
    evidence = evidence == null ? List.of() : List.copyOf(evidence);
    inferredWorkloads = inferredWorkloads == null ? List.of() : List.copyOf(inferredWorkloads);
    annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
  }

  public ProposalSnapshot(
      String name,
      String namespace,
      WorkloadNetworkPolicyProposalSpec spec,
      List<RuleEvidence> evidence,
      Instant updatedAt) {
    this(name, namespace, spec, evidence, updatedAt, List.of(), Map.of(), null);
  }

  public ProposalSnapshot(
      String name,
      String namespace,
      WorkloadNetworkPolicyProposalSpec spec,
      List<RuleEvidence> evidence,
      Instant updatedAt,
      Convergence convergence) {
    this(name, namespace, spec, evidence, updatedAt, List.of(), Map.of(), convergence);
  }

  public ProposalSnapshot(
      String name,
      String namespace,
      WorkloadNetworkPolicyProposalSpec spec,
      List<RuleEvidence> evidence,
      Instant updatedAt,
      List<String> inferredWorkloads) {
    this(name, namespace, spec, evidence, updatedAt, inferredWorkloads, Map.of(), null);
  }

  public ProposalSnapshot(
      String name,
      String namespace,
      WorkloadNetworkPolicyProposalSpec spec,
      List<RuleEvidence> evidence,
      Instant updatedAt,
      List<String> inferredWorkloads,
      Map<String, String> annotations) {
    this(name, namespace, spec, evidence, updatedAt, inferredWorkloads, annotations, null);
  }

  /**
   * Every annotation the WNPP carries: the given ones plus the inferred-workloads marker when
   * something was inferred.
   */
  @JsonIgnore
  public Map<String, String> metadataAnnotations() {
    if (inferredWorkloads.isEmpty()) {
      return annotations;
    }
    var all = new TreeMap<>(annotations);
    all.put(Labels.INFERRED_WORKLOADS, String.join(",", inferredWorkloads));
    return Map.copyOf(all);
  }

  /** The same proposal carrying these annotations. */
  public ProposalSnapshot withAnnotations(Map<String, String> values) {
    return new ProposalSnapshot(
        name, namespace, spec, evidence, updatedAt, inferredWorkloads, values, convergence);
  }

  /** The same proposal with this {@code Converged} condition. */
  public ProposalSnapshot withConvergence(Convergence value) {
    return new ProposalSnapshot(
        name, namespace, spec, evidence, updatedAt, inferredWorkloads, annotations, value);
  }

  /** The target this proposal is for, from its spec. */
  @JsonIgnore
  public TargetKey target() {
    return new TargetKey(
        new WorkloadRef(namespace, spec.getTargetRef().getKind(), spec.getTargetRef().getName()),
        spec.getDirection());
  }
}
