package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.rendering.Ownership;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proposal object the writer wants in the cluster, from the latest record (if any), the live
 * object and its workload: the learned spec with a reviewer's edits kept (only what was learned
 * since the last apply is merged in, see {@link LearnedSpecMerge}), the annotation {@value
 * #LEARNED_SPEC} with the learned spec applied last, the record's annotations, the controller owner
 * reference to the workload and the finalizer {@value LearningResetFinalizer#NAME}. Pure: reads its
 * arguments only.
 */
final class DesiredProposal {
  private static final Logger LOG = LoggerFactory.getLogger(DesiredProposal.class);

  /**
   * Ours: the learned spec the writer applied last, so it can tell a reviewer's edits from
   * learning.
   */
  static final String LEARNED_SPEC = Labels.PREFIX + "learned-spec";

  private DesiredProposal() {}

  /** Whether the live object lacks what the record or the metadata rules want. */
  static boolean needsApply(
      ObjectKey key,
      WorkloadNetworkPolicyProposal live,
      ProposalSnapshot snapshot,
      HasMetadata workload) {
    return live == null
        || snapshot != null && learnedChanged(live, snapshot)
        || !Ownership.carriesOurMetadata(live, withMetadata(key, workload, null, Map.of()))
        || !LearningResetFinalizer.held(live) // a proposal of an older writer: adopted
        || snapshot != null && !annotationsApplied(live, snapshot);
  }

  /** The object to apply; {@code snapshot} null re-applies the live spec with our metadata. */
  static WorkloadNetworkPolicyProposal of(
      ObjectKey key,
      WorkloadNetworkPolicyProposal live,
      ProposalSnapshot snapshot,
      HasMetadata workload) {
    WorkloadNetworkPolicyProposalSpec learned =
        snapshot != null ? snapshot.spec() : lastLearned(live);
    WorkloadNetworkPolicyProposalSpec spec;
    if (live == null) {
      spec = snapshot.spec();
    } else if (snapshot == null || !learnedChanged(live, snapshot)) {
      spec = live.getSpec();
    } else {
      spec = LearnedSpecMerge.merge(lastLearned(live), snapshot.spec(), live.getSpec());
    }
    WorkloadNetworkPolicyProposal p =
        withMetadata(
            key,
            workload,
            learned,
            snapshot != null ? snapshot.metadataAnnotations() : carriedAnnotations(live));
    p.setSpec(spec);
    return p;
  }

  static int ruleCount(WorkloadNetworkPolicyProposalSpec spec) {
    int rules = 0;
    if (spec.getKubernetes() != null) {
      rules +=
          spec.getKubernetes().getIngress() == null ? 0 : spec.getKubernetes().getIngress().size();
      rules +=
          spec.getKubernetes().getEgress() == null ? 0 : spec.getKubernetes().getEgress().size();
    }
    if (spec.getIstio() != null && spec.getIstio().getRules() != null) {
      rules += spec.getIstio().getRules().size();
    }
    if (spec.getCilium() != null) {
      rules += spec.getCilium().getIngress() == null ? 0 : spec.getCilium().getIngress().size();
      rules += spec.getCilium().getEgress() == null ? 0 : spec.getCilium().getEgress().size();
    }
    return rules;
  }

  /**
   * Whether the learned spec differs from the one applied last (else a reviewer's edit stands as
   * is).
   */
  private static boolean learnedChanged(
      WorkloadNetworkPolicyProposal live, ProposalSnapshot snapshot) {
    WorkloadNetworkPolicyProposalSpec previous = lastLearned(live);
    return previous == null
        ? !Objects.equals(live.getSpec(), snapshot.spec())
        : !Objects.equals(previous, snapshot.spec());
  }

  /**
   * Whether the live proposal carries the snapshot's annotations (a replay window, the inferred
   * marker) and no inferred marker the snapshot dropped (the cluster now confirms the workloads).
   */
  private static boolean annotationsApplied(
      WorkloadNetworkPolicyProposal live, ProposalSnapshot snapshot) {
    Map<String, String> annotations =
        live.getMetadata().getAnnotations() == null
            ? Map.of()
            : live.getMetadata().getAnnotations();
    Map<String, String> wanted = snapshot.metadataAnnotations();
    return annotations.entrySet().containsAll(wanted.entrySet())
        && Objects.equals(
            annotations.get(Labels.INFERRED_WORKLOADS), wanted.get(Labels.INFERRED_WORKLOADS));
  }

  /**
   * The snapshot annotations a live proposal carries, kept when it is re-applied without a new
   * snapshot.
   */
  private static Map<String, String> carriedAnnotations(WorkloadNetworkPolicyProposal live) {
    Map<String, String> annotations =
        live == null || live.getMetadata().getAnnotations() == null
            ? Map.of()
            : live.getMetadata().getAnnotations();
    Map<String, String> carried = new TreeMap<>();
    for (String name : List.of(Labels.INFERRED_WORKLOADS, Labels.REPLAYED_FROM)) {
      if (annotations.containsKey(name)) {
        carried.put(name, annotations.get(name));
      }
    }
    return carried;
  }

  private static WorkloadNetworkPolicyProposal withMetadata(
      ObjectKey key,
      HasMetadata workload,
      WorkloadNetworkPolicyProposalSpec learned,
      Map<String, String> snapshotAnnotations) {
    WorkloadNetworkPolicyProposal p = new WorkloadNetworkPolicyProposal();
    ObjectMetaBuilder meta =
        new ObjectMetaBuilder()
            .withName(key.name())
            .withNamespace(key.namespace())
            .withLabels(Map.of(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE))
            .withOwnerReferences(ownerReferenceTo(workload))
            .withFinalizers(LearningResetFinalizer.NAME);
    Map<String, String> annotations = new TreeMap<>(snapshotAnnotations);
    if (learned != null) {
      annotations.put(LEARNED_SPEC, LearnedSpecAnnotation.encode(learned));
    }
    if (!annotations.isEmpty()) {
      meta.withAnnotations(annotations);
    }
    p.setMetadata(meta.build());
    return p;
  }

  /**
   * The controller reference to the workload, as the reference sets it (and the admission policy
   * allows): {@code apps/v1} for Deployments, StatefulSets and DaemonSets, {@code batch/v1} for
   * CronJobs.
   */
  static OwnerReference ownerReferenceTo(HasMetadata workload) {
    String apiVersion =
        WorkloadKind.fromKind(workload.getKind())
            .map(WorkloadKind::apiVersion)
            .orElseGet(workload::getApiVersion);
    return new OwnerReferenceBuilder()
        .withApiVersion(apiVersion)
        .withKind(workload.getKind())
        .withName(workload.getMetadata().getName())
        .withUid(workload.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  static WorkloadNetworkPolicyProposalSpec lastLearned(WorkloadNetworkPolicyProposal live) {
    Map<String, String> annotations = live.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(LEARNED_SPEC);
    if (value == null) {
      return null;
    }
    try {
      return LearnedSpecAnnotation.decode(value);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "annotation {} of {}/{} is {}; treating everything learned as new",
          LEARNED_SPEC,
          live.getMetadata().getNamespace(),
          live.getMetadata().getName(),
          e.getMessage());
      return null;
    }
  }
}
