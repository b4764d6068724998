package io.kubewarden.networkenforcer.writer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What the leader knows of the cluster: the informer caches of policies and proposals, with
 * policies indexed by target so "does this target have a policy?" is one lookup.
 */
public final class ClusterCache {
  public static final String BY_TARGET = "target";

  private final SharedIndexInformer<WorkloadNetworkPolicy> policies;
  private final SharedIndexInformer<WorkloadNetworkPolicyProposal> proposals;
  private final Map<WorkloadKind, SharedIndexInformer<? extends HasMetadata>> workloads;

  public ClusterCache(
      SharedIndexInformer<WorkloadNetworkPolicy> policies,
      SharedIndexInformer<WorkloadNetworkPolicyProposal> proposals) {
    this(policies, proposals, Map.of());
  }

  /**
   * With the workload informers: proposals take their owner's uid from the cache, not a GET per
   * record.
   */
  public ClusterCache(
      SharedIndexInformer<WorkloadNetworkPolicy> policies,
      SharedIndexInformer<WorkloadNetworkPolicyProposal> proposals,
      Map<WorkloadKind, SharedIndexInformer<? extends HasMetadata>> workloads) {
    this.policies = policies;
    this.proposals = proposals;
    this.workloads = workloads;
  }

  /** The cached workload; empty when it does not exist (or its kind is not watched). */
  public Optional<HasMetadata> workload(WorkloadRef ref) {
    SharedIndexInformer<? extends HasMetadata> informer = workloads.get(ref.kind());
    return informer == null
        ? Optional.empty()
        : Optional.ofNullable(informer.getStore().getByKey(ref.namespace() + "/" + ref.name()));
  }

  /** The index function to register on the policy informer before it starts. */
  public static Map<String, Function<WorkloadNetworkPolicy, List<String>>> targetIndex() {
    return Map.of(
        BY_TARGET,
        wnp ->
            targetOf(wnp.getMetadata().getNamespace(), wnp.getSpec())
                .map(t -> List.of(t.key()))
                .orElse(List.of()));
  }

  /** The target of a spec in a namespace; empty when the spec is incomplete. */
  public static Optional<TargetKey> targetOf(String namespace, PolicySpec spec) {
    if (namespace == null
        || spec == null
        || spec.getTargetRef() == null
        || spec.getTargetRef().getKind() == null
        || spec.getTargetRef().getName() == null
        || spec.getDirection() == null) {
      return Optional.empty();
    }
    return Optional.of(
        new TargetKey(
            new WorkloadRef(
                namespace, spec.getTargetRef().getKind(), spec.getTargetRef().getName()),
            spec.getDirection()));
  }

  public Optional<WorkloadNetworkPolicy> policyFor(TargetKey target) {
    return policies.getIndexer().byIndex(BY_TARGET, target.key()).stream().findFirst();
  }

  public Optional<WorkloadNetworkPolicy> policy(String namespace, String name) {
    return Optional.ofNullable(policies.getStore().getByKey(namespace + "/" + name));
  }

  public List<WorkloadNetworkPolicy> allPolicies() {
    return policies.getStore().list();
  }

  public List<WorkloadNetworkPolicyProposal> allProposals() {
    return proposals.getStore().list();
  }

  /** Every cached workload of every watched kind. */
  public List<HasMetadata> allWorkloads() {
    return workloads.values().stream()
        .<HasMetadata>flatMap(i -> i.getStore().list().stream())
        .toList();
  }

  public Optional<WorkloadNetworkPolicyProposal> proposal(String namespace, String name) {
    return Optional.ofNullable(proposals.getStore().getByKey(namespace + "/" + name));
  }

  public List<WorkloadNetworkPolicyProposal> proposalsFor(TargetKey target) {
    return proposals.getStore().list().stream()
        .filter(
            p ->
                targetOf(p.getMetadata().getNamespace(), p.getSpec())
                    .filter(target::equals)
                    .isPresent())
        .toList();
  }
}
