package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalStatus;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import io.kubewarden.networkenforcer.writer.ClusterCache;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.policies.OwnDeletes;
import io.kubewarden.networkenforcer.writer.rendering.Ownership;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One record of the proposals topic to the cluster: a snapshot becomes the WNPP (spec, then
 * evidence in its status), owned by its workload; a tombstone deletes it. Targets that already
 * have a policy are skipped; nothing is written when the live proposal already matches.
 */
public final class ProposalApplier {
  private static final Logger LOG = LoggerFactory.getLogger(ProposalApplier.class);

  /** What became of one record. */
  public enum Outcome { APPLIED, UNCHANGED, SKIPPED_POLICY_EXISTS, SKIPPED_WORKLOAD_MISSING, DELETED, ALREADY_GONE }

  private final KubernetesClient client;
  private final ClusterWriter writer;
  private final ClusterCache cache;
  private final OwnDeletes ownDeletes;
  private final MeterRegistry meters;

  public ProposalApplier(KubernetesClient client, ClusterWriter writer, ClusterCache cache, OwnDeletes ownDeletes,
      MeterRegistry meters) {
    this.client = client;
    this.writer = writer;
    this.cache = cache;
    this.ownDeletes = ownDeletes;
    this.meters = meters;
  }

  public Outcome apply(String key, ProposalSnapshot snapshot) {
    Outcome outcome;
    try {
      outcome = snapshot == null ? delete(targetOfKey(key)) : upsert(snapshot);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 400 || e.getCode() == 422) {
        // Retrying cannot help (the API server says the object is invalid): give it up, visibly.
        throw new InvalidProposalException("the API server rejected proposal " + key + " (" + e.getCode() + "): "
            + e.getMessage(), e);
      }
      throw e;
    }
    meters.counter("network.enforcer.writer.proposals", "outcome", outcome.name().toLowerCase()).increment();
    return outcome;
  }

  private Outcome delete(TargetKey target) {
    String ns = target.namespace();
    String name = target.objectName();
    WorkloadNetworkPolicyProposal live = cache.proposal(ns, name).orElse(null);
    if (live == null) {
      return Outcome.ALREADY_GONE;
    }
    ownDeletes.mark(ns, name);
    boolean deleted;
    try {
      deleted = writer.delete(live);
    } catch (RuntimeException e) {
      ownDeletes.forget(ns, name);
      throw e;
    }
    LOG.info("proposal {}/{} reset by the processor: {}", ns, name, deleted ? "deleted" : "already gone");
    return deleted ? Outcome.DELETED : Outcome.ALREADY_GONE;
  }

  private static TargetKey targetOfKey(String key) {
    try {
      return TargetKey.parse(key);
    } catch (IllegalArgumentException e) {
      throw new InvalidProposalException("tombstone key is not a target: " + e.getMessage(), e);
    }
  }

  private Outcome upsert(ProposalSnapshot snapshot) {
    TargetKey target = ClusterCache.targetOf(snapshot.namespace(), snapshot.spec()).orElseThrow(() ->
        new InvalidProposalException("proposal " + snapshot.namespace() + "/" + snapshot.name()
            + " has no complete spec.targetRef and spec.direction", null));
    if (cache.policyFor(target).isPresent()) {
      return Outcome.SKIPPED_POLICY_EXISTS;
    }
    HasMetadata workload = workload(target.workload());
    if (workload == null) {
      LOG.info("workload {} of proposal {}/{} does not exist (any more); skipped", target.workload(),
          snapshot.namespace(), snapshot.name());
      return Outcome.SKIPPED_WORKLOAD_MISSING;
    }
    WorkloadNetworkPolicyProposal desired = desired(snapshot, workload);
    WorkloadNetworkPolicyProposal live = cache.proposal(snapshot.namespace(), snapshot.name()).orElse(null);
    boolean written = false;
    if (live == null || !sameSpecAndOwner(live, desired)) {
      writer.apply(desired);
      written = true;
    }
    WorkloadNetworkPolicyProposalStatus status = new WorkloadNetworkPolicyProposalStatus(
        new ArrayList<>(snapshot.evidence()));
    if (snapshot.convergence() != null) {
      status.setConditions(List.of(snapshot.convergence().toCondition()));
    }
    if (live == null || !Objects.equals(live.getStatus(), status)) {
      WorkloadNetworkPolicyProposal withStatus = desired(snapshot, workload);
      withStatus.setSpec(null);
      withStatus.setStatus(status);
      try {
        writer.applyStatus(withStatus);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        // Deleted between the two writes (by a person, or a reset): its evidence has no home now.
        LOG.info("proposal {}/{} was deleted before its evidence was written", snapshot.namespace(), snapshot.name());
        return Outcome.ALREADY_GONE;
      }
      written = true;
    }
    return written ? Outcome.APPLIED : Outcome.UNCHANGED;
  }

  private HasMetadata workload(WorkloadRef ref) {
    var apps = client.apps();
    return switch (ref.kind()) {
      case Deployment -> apps.deployments().inNamespace(ref.namespace()).withName(ref.name()).get();
      case StatefulSet -> apps.statefulSets().inNamespace(ref.namespace()).withName(ref.name()).get();
      case DaemonSet -> apps.daemonSets().inNamespace(ref.namespace()).withName(ref.name()).get();
      case CronJob -> client.batch().v1().cronjobs().inNamespace(ref.namespace()).withName(ref.name()).get();
    };
  }

  static WorkloadNetworkPolicyProposal desired(ProposalSnapshot snapshot, HasMetadata workload) {
    WorkloadNetworkPolicyProposal p = new WorkloadNetworkPolicyProposal();
    OwnerReference owner = new OwnerReferenceBuilder()
        .withApiVersion(snapshot.spec().getTargetRef().getKind().apiVersion())
        .withKind(workload.getKind() == null ? snapshot.spec().getTargetRef().getKind().name() : workload.getKind())
        .withName(workload.getMetadata().getName())
        .withUid(workload.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
    p.setMetadata(new ObjectMetaBuilder()
        .withName(snapshot.name())
        .withNamespace(snapshot.namespace())
        .withLabels(Map.of(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE))
        .withOwnerReferences(owner)
        .build());
    p.setSpec(snapshot.spec());
    return p;
  }

  private static boolean sameSpecAndOwner(WorkloadNetworkPolicyProposal live, WorkloadNetworkPolicyProposal desired) {
    return Objects.equals(live.getSpec(), desired.getSpec()) && Ownership.carriesOurMetadata(live, desired);
  }
}
