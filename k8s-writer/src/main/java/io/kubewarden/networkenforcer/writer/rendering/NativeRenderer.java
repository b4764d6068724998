package io.kubewarden.networkenforcer.writer.rendering;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.writer.apply.ApiRefusals;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.kubewarden.networkenforcer.writer.conditions.StatusConditions;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the native object of one WNP in line with it: a NetworkPolicy or CiliumNetworkPolicy in
 * protect mode only, an AuthorizationPolicy in both modes (dry-run in monitor). The live object is
 * read straight from the API server, so a same-named object without our label is seen and left
 * alone. The outcome becomes the policy's {@code Rendered} condition. A failure the API server may
 * not repeat (no connection, 409, 429, 5xx) is also thrown, so the policy's key is retried with
 * back-off: the writer's requests are sent once, and a protect-mode policy must not wait for the
 * next resync.
 */
public final class NativeRenderer {
  private static final Logger LOG = LoggerFactory.getLogger(NativeRenderer.class);

  private final KubernetesClient client;
  private final ClusterWriter writer;
  private final IstioAvailability istio;
  private final RenderConditions conditions;
  private final MeterRegistry meters;

  public NativeRenderer(
      KubernetesClient client,
      ClusterWriter writer,
      IstioAvailability istio,
      RenderConditions conditions,
      MeterRegistry meters) {
    this.client = client;
    this.writer = writer;
    this.istio = istio;
    this.conditions = conditions;
    this.meters = meters;
  }

  public void render(WorkloadNetworkPolicy wnp) {
    String key = wnp.getMetadata().getNamespace() + "/" + wnp.getMetadata().getName();
    if (wnp.getSpec() == null || wnp.getSpec().getBackend() == null) {
      fail(key, StatusConditions.REASON_RENDER_FAILED, "the policy has no spec.backend");
      return;
    }
    try {
      if (wnp.getSpec().getBackend() == Backend.kubernetes) {
        renderNetworkPolicy(key, wnp);
      } else if (wnp.getSpec().getBackend() == Backend.cilium) {
        renderCiliumNetworkPolicy(key, wnp);
      } else {
        renderAuthorizationPolicy(key, wnp);
      }
    } catch (NotLeaderException e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.warn("rendering {} failed: {}", key, e.toString());
      meters.counter("network.enforcer.writer.render.failures").increment();
      fail(key, StatusConditions.REASON_RENDER_FAILED, "rendering failed: " + e.getMessage());
      if (ApiRefusals.of(e).mayPassLater()) {
        throw e;
      }
    }
  }

  private void renderNetworkPolicy(String key, WorkloadNetworkPolicy wnp) {
    String ns = wnp.getMetadata().getNamespace();
    String name = wnp.getMetadata().getName();
    NetworkPolicy live =
        client.network().v1().networkPolicies().inNamespace(ns).withName(name).get();
    if (wnp.getSpec().getMode() != Mode.protect) {
      if (live != null && Ownership.isControlledBy(live, wnp)) {
        writer.delete(live);
        meters
            .counter("network.enforcer.writer.render.deletes", "kind", "NetworkPolicy")
            .increment();
        LOG.info("deleted NetworkPolicy {}: policy is in monitor mode", key);
      }
      conditions.set(
          key,
          true,
          StatusConditions.RENDERED,
          StatusConditions.REASON_NOT_RENDERED_IN_MONITOR,
          "monitor mode: no NetworkPolicy is enforced");
      return;
    }
    if (wnp.getSpec().getKubernetes() == null) {
      fail(key, StatusConditions.REASON_RENDER_FAILED, "spec.kubernetes is empty");
      return;
    }
    if (live != null && !Ownership.isControlledBy(live, wnp)) {
      notOwned(key, "NetworkPolicy");
      return;
    }
    NetworkPolicy desired = NetworkPolicies.desired(wnp);
    if (live == null || !NetworkPolicies.matches(live, desired)) {
      writer.apply(desired);
      meters.counter("network.enforcer.writer.render.applies", "kind", "NetworkPolicy").increment();
      LOG.info("{} NetworkPolicy {}", live == null ? "created" : "repaired", key);
    }
    conditions.set(
        key,
        true,
        StatusConditions.RENDERED,
        StatusConditions.REASON_RENDERED,
        "NetworkPolicy " + name + " enforces this policy");
  }

  /**
   * As a NetworkPolicy: enforced in protect mode only (monitor mode is evaluated in software, DNS
   * names included), deleted when the policy goes back to monitor.
   */
  private void renderCiliumNetworkPolicy(String key, WorkloadNetworkPolicy wnp) {
    String ns = wnp.getMetadata().getNamespace();
    String name = wnp.getMetadata().getName();
    GenericKubernetesResource live =
        client
            .genericKubernetesResources(CiliumNetworkPolicies.CONTEXT)
            .inNamespace(ns)
            .withName(name)
            .get();
    if (wnp.getSpec().getMode() != Mode.protect) {
      if (live != null && Ownership.isControlledBy(live, wnp)) {
        writer.delete(live);
        meters
            .counter("network.enforcer.writer.render.deletes", "kind", CiliumNetworkPolicies.KIND)
            .increment();
        LOG.info("deleted CiliumNetworkPolicy {}: policy is in monitor mode", key);
      }
      conditions.set(
          key,
          true,
          StatusConditions.RENDERED,
          StatusConditions.REASON_NOT_RENDERED_IN_MONITOR,
          "monitor mode: no CiliumNetworkPolicy is enforced");
      return;
    }
    if (wnp.getSpec().getCilium() == null) {
      fail(key, StatusConditions.REASON_RENDER_FAILED, "spec.cilium is empty");
      return;
    }
    if (live != null && !Ownership.isControlledBy(live, wnp)) {
      notOwned(key, CiliumNetworkPolicies.KIND);
      return;
    }
    GenericKubernetesResource desired = CiliumNetworkPolicies.desired(wnp);
    if (live == null || !CiliumNetworkPolicies.matches(live, desired)) {
      writer.apply(desired);
      meters
          .counter("network.enforcer.writer.render.applies", "kind", CiliumNetworkPolicies.KIND)
          .increment();
      LOG.info("{} CiliumNetworkPolicy {}", live == null ? "created" : "repaired", key);
    }
    conditions.set(
        key,
        true,
        StatusConditions.RENDERED,
        StatusConditions.REASON_RENDERED,
        "CiliumNetworkPolicy " + name + " enforces this policy");
  }

  private void renderAuthorizationPolicy(String key, WorkloadNetworkPolicy wnp) {
    if (!istio.available()) {
      fail(
          key,
          StatusConditions.REASON_ISTIO_UNAVAILABLE,
          "the cluster does not serve "
              + AuthorizationPolicies.API_VERSION
              + " AuthorizationPolicy; install Istio");
      return;
    }
    if (wnp.getSpec().getIstio() == null
        || !AuthorizationPolicies.expressible(wnp.getSpec().getIstio().getSelector())) {
      fail(
          key,
          StatusConditions.REASON_SELECTOR_NOT_EXPRESSIBLE,
          "spec.istio.selector must be matchLabels only: "
              + "an AuthorizationPolicy selector cannot express matchExpressions, and dropping them would widen the policy");
      return;
    }
    String ns = wnp.getMetadata().getNamespace();
    String name = wnp.getMetadata().getName();
    GenericKubernetesResource live =
        client
            .genericKubernetesResources(AuthorizationPolicies.CONTEXT)
            .inNamespace(ns)
            .withName(name)
            .get();
    if (live != null && !Ownership.isControlledBy(live, wnp)) {
      notOwned(key, "AuthorizationPolicy");
      return;
    }
    GenericKubernetesResource desired = AuthorizationPolicies.desired(wnp);
    if (live == null || !AuthorizationPolicies.matches(live, desired)) {
      writer.apply(desired);
      meters
          .counter("network.enforcer.writer.render.applies", "kind", "AuthorizationPolicy")
          .increment();
      LOG.info(
          "{} AuthorizationPolicy {} ({})",
          live == null ? "created" : "updated",
          key,
          wnp.getSpec().getMode() == Mode.protect ? "enforced" : "dry-run");
    }
    conditions.set(
        key,
        true,
        StatusConditions.RENDERED,
        StatusConditions.REASON_RENDERED,
        "AuthorizationPolicy "
            + name
            + (wnp.getSpec().getMode() == Mode.protect
                ? " enforces this policy"
                : " evaluates this policy in dry-run"));
  }

  private void notOwned(String key, String kind) {
    LOG.warn("{} {} exists and is not owned by the policy; left alone", kind, key);
    meters.counter("network.enforcer.writer.render.not.owned", "kind", kind).increment();
    fail(
        key,
        StatusConditions.REASON_NOT_OWNED,
        "a "
            + kind
            + " with this name exists and is not owned by this "
            + "policy; it was left alone. Delete or rename it to let the policy render");
  }

  private void fail(String key, String reason, String message) {
    conditions.set(key, false, StatusConditions.RENDERED, reason, message);
  }
}
