package io.kubewarden.networkenforcer.writer.promotion;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.writer.ClusterCache;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.policies.OwnDeletes;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a proposal labelled {@code promote=monitor|protect} into a WorkloadNetworkPolicy of the
 * same name, then deletes the proposal; deletes proposals whose target already has a policy.
 */
public final class Promoter {
  private static final Logger LOG = LoggerFactory.getLogger(Promoter.class);

  private final ClusterCache cache;
  private final ClusterWriter writer;
  private final OwnDeletes ownDeletes;
  private final MeterRegistry meters;

  public Promoter(ClusterCache cache, ClusterWriter writer, OwnDeletes ownDeletes, MeterRegistry meters) {
    this.cache = cache;
    this.writer = writer;
    this.ownDeletes = ownDeletes;
    this.meters = meters;
  }

  /** A proposal was added or changed. */
  public void reconcile(WorkloadNetworkPolicyProposal wnpp) {
    String ns = wnpp.getMetadata().getNamespace();
    String name = wnpp.getMetadata().getName();
    Optional<TargetKey> target = ClusterCache.targetOf(ns, wnpp.getSpec());
    if (target.isEmpty()) {
      return;
    }
    Optional<WorkloadNetworkPolicy> existing = cache.policyFor(target.get());
    if (existing.isPresent()) {
      deleteLeftover(wnpp, existing.get());
      return;
    }
    String label = labels(wnpp).get(Labels.PROMOTE);
    if (label == null) {
      return;
    }
    Optional<Mode> mode = Mode.fromLabel(label);
    if (mode.isEmpty()) {
      meters.counter("network.enforcer.writer.promotions.invalid.label").increment();
      LOG.warn("proposal {}/{} has {}={}; only monitor or protect promote it, so it is ignored", ns, name,
          Labels.PROMOTE, label);
      return;
    }
    try {
      // Create, never apply: a policy that exists already must not be overwritten by a proposal.
      writer.create(policyFrom(wnpp, mode.get()));
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      LOG.info("policy {}/{} exists already; proposal is a leftover", ns, name);
    }
    deleteOwn(wnpp);
    meters.counter("network.enforcer.writer.promotions", "mode", mode.get().value()).increment();
    LOG.info("promoted proposal {}/{} to a policy in {} mode", ns, name, mode.get());
  }

  /** A policy appeared: any proposal still around for its target is a leftover. */
  public void deleteLeftoversOf(WorkloadNetworkPolicy wnp) {
    ClusterCache.targetOf(wnp.getMetadata().getNamespace(), wnp.getSpec())
        .ifPresent(t -> cache.proposalsFor(t).forEach(p -> deleteLeftover(p, wnp)));
  }

  private void deleteLeftover(WorkloadNetworkPolicyProposal wnpp, WorkloadNetworkPolicy policy) {
    if (deleteOwn(wnpp)) {
      meters.counter("network.enforcer.writer.proposals.leftovers.deleted").increment();
      LOG.info("deleted leftover proposal {}/{}: policy {} covers its target", wnpp.getMetadata().getNamespace(),
          wnpp.getMetadata().getName(), policy.getMetadata().getName());
    }
  }

  /** Deletes a proposal, marked as our own delete so it does not reset learning. */
  private boolean deleteOwn(WorkloadNetworkPolicyProposal wnpp) {
    String ns = wnpp.getMetadata().getNamespace();
    String name = wnpp.getMetadata().getName();
    ownDeletes.mark(ns, name);
    try {
      return writer.delete(wnpp);
    } catch (RuntimeException e) {
      ownDeletes.forget(ns, name);
      throw e;
    }
  }

  /** Same name and namespace, the copied spec, the mode of the label, and promoted-from. */
  public static WorkloadNetworkPolicy policyFrom(WorkloadNetworkPolicyProposal wnpp, Mode mode) {
    WorkloadNetworkPolicy wnp = new WorkloadNetworkPolicy();
    wnp.setMetadata(new ObjectMetaBuilder()
        .withName(wnpp.getMetadata().getName())
        .withNamespace(wnpp.getMetadata().getNamespace())
        .withLabels(Map.of(Labels.PROMOTED_FROM, wnpp.getMetadata().getName()))
        .build());
    WorkloadNetworkPolicySpec spec = new WorkloadNetworkPolicySpec();
    spec.copySharedFrom(wnpp.getSpec());
    spec.setMode(mode);
    wnp.setSpec(spec);
    return wnp;
  }

  private static Map<String, String> labels(WorkloadNetworkPolicyProposal p) {
    return p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
  }
}
