package io.kubewarden.networkenforcer.writer.rendering;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.writer.apply.AuthorizationPolicyType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Istio {@code security.istio.io/v1} AuthorizationPolicy a WNP of the istio backend renders to.
 */
public final class AuthorizationPolicies {
  public static final String GROUP = AuthorizationPolicyType.GROUP;
  public static final String API_VERSION = AuthorizationPolicyType.API_VERSION;
  public static final String KIND = AuthorizationPolicyType.KIND;
  public static final ResourceDefinitionContext CONTEXT = AuthorizationPolicyType.CONTEXT;

  private AuthorizationPolicies() {}

  /** Whether the selector can be written as an AuthorizationPolicy selector (matchLabels only). */
  public static boolean expressible(LabelSelector selector) {
    return selector != null
        && (selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty())
        && selector.getMatchLabels() != null
        && !selector.getMatchLabels().isEmpty();
  }

  /** ALLOW, the workload selector, the rules; dry-run annotation in monitor only. */
  public static GenericKubernetesResource desired(WorkloadNetworkPolicy wnp) {
    IstioPolicy istio = wnp.getSpec().getIstio();
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("action", "ALLOW");
    spec.put(
        "selector",
        Map.of("matchLabels", new LinkedHashMap<>(istio.getSelector().getMatchLabels())));
    spec.put(
        "rules",
        Json.mapper()
            .convertValue(istio.getRules() == null ? List.of() : istio.getRules(), List.class));
    ObjectMetaBuilder meta =
        new ObjectMetaBuilder()
            .withName(wnp.getMetadata().getName())
            .withNamespace(wnp.getMetadata().getNamespace())
            .withLabels(Map.of(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE))
            .withOwnerReferences(Ownership.controllerReferenceTo(wnp));
    if (wnp.getSpec().getMode() != Mode.protect) {
      meta.withAnnotations(Map.of(Labels.ISTIO_DRY_RUN, "true"));
    }
    GenericKubernetesResource ap = new GenericKubernetesResource();
    ap.setApiVersion(API_VERSION);
    ap.setKind(KIND);
    ap.setMetadata(meta.build());
    ap.setAdditionalProperty("spec", spec);
    return ap;
  }

  /** Same spec, same dry-run state, our label and owner: nothing to apply. */
  public static boolean matches(GenericKubernetesResource live, GenericKubernetesResource desired) {
    var mapper = Json.mapper();
    boolean sameSpec =
        mapper
            .valueToTree(live.getAdditionalProperties().get("spec"))
            .equals(mapper.valueToTree(desired.getAdditionalProperties().get("spec")));
    return sameSpec
        && dryRun(live) == dryRun(desired)
        && Ownership.carriesOurMetadata(live, desired);
  }

  private static boolean dryRun(GenericKubernetesResource r) {
    Map<String, String> a = r.getMetadata().getAnnotations();
    return a != null && "true".equals(a.get(Labels.ISTIO_DRY_RUN));
  }
}
