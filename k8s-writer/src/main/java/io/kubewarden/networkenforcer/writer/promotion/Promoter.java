package io.kubewarden.networkenforcer.writer.promotion;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The promotion step of the proposal reconciler: a proposal labelled {@code
 * promote=monitor|protect} becomes a WorkloadNetworkPolicy of the same name (copied spec, mode of
 * the label, {@code promoted-from}), then the proposal is deleted. A same-named policy of another
 * workload is a clash: the proposal stays and says so.
 */
public final class Promoter {
  private static final Logger LOG = LoggerFactory.getLogger(Promoter.class);

  /** What became of a promotion attempt. */
  public sealed interface Outcome {
    /**
     * The policy exists now (created, or it was there for the same target): delete the proposal.
     */
    record Promoted(Mode mode) implements Outcome {}

    /** A policy of that name exists for another target: keep the proposal, report this. */
    record NameClash(String message) implements Outcome {}

    record InvalidLabel(String message) implements Outcome {}

    /** No promote label. */
    record NotRequested() implements Outcome {}
  }

  private final KubernetesClient client;
  private final ClusterCache cache;
  private final ClusterWriter writer;
  private final MeterRegistry meters;

  public Promoter(
      KubernetesClient client, ClusterCache cache, ClusterWriter writer, MeterRegistry meters) {
    this.client = client;
    this.cache = cache;
    this.writer = writer;
    this.meters = meters;
  }

  public Outcome promote(WorkloadNetworkPolicyProposal wnpp, TargetKey target) {
    String ns = wnpp.getMetadata().getNamespace();
    String name = wnpp.getMetadata().getName();
    String label = labels(wnpp).get(Labels.PROMOTE);
    if (label == null) {
      return new Outcome.NotRequested();
    }
    Optional<Mode> mode = Mode.fromLabel(label);
    if (mode.isEmpty()) {
      meters.counter("network.enforcer.writer.promotions.invalid.label").increment();
      return new Outcome.InvalidLabel(
          Labels.PROMOTE + "=" + label + ": only monitor or protect promote a proposal");
    }
    try {
      // Create, never apply: a policy that exists already must not be overwritten by a proposal.
      writer.create(policyFrom(wnpp, mode.get()));
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // The cache may not have it yet: one read, on this rare path only.
      WorkloadNetworkPolicy existing =
          cache
              .policy(ns, name)
              .orElseGet(
                  () ->
                      client
                          .resources(WorkloadNetworkPolicy.class)
                          .inNamespace(ns)
                          .withName(name)
                          .get());
      Optional<TargetKey> theirs =
          existing == null ? Optional.empty() : ClusterCache.targetOf(ns, existing.getSpec());
      if (existing != null && !theirs.equals(Optional.of(target))) {
        meters.counter("network.enforcer.writer.promotions.name.clash").increment();
        return new Outcome.NameClash(
            "a WorkloadNetworkPolicy named "
                + name
                + " exists for "
                + theirs.map(TargetKey::toString).orElse("another target")
                + ", not for "
                + target
                + "; rename or delete that policy and the proposal is promoted");
      }
      LOG.info("policy {}/{} exists already for the same target; proposal is a leftover", ns, name);
    }
    meters.counter("network.enforcer.writer.promotions", "mode", mode.get().value()).increment();
    LOG.info("promoted proposal {}/{} to a policy in {} mode", ns, name, mode.get());
    return new Outcome.Promoted(mode.get());
  }

  /** Same name and namespace, the copied spec, the mode of the label, and promoted-from. */
  public static WorkloadNetworkPolicy policyFrom(WorkloadNetworkPolicyProposal wnpp, Mode mode) {
    WorkloadNetworkPolicy wnp = new WorkloadNetworkPolicy();
    wnp.setMetadata(
        new ObjectMetaBuilder()
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
