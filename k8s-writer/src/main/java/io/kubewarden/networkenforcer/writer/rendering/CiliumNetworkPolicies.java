package io.kubewarden.networkenforcer.writer.rendering;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.writer.apply.CiliumNetworkPolicyType;
import java.util.List;
import java.util.Map;

/**
 * The {@code cilium.io/v2} CiliumNetworkPolicy a WNP of the cilium backend renders to in protect
 * mode: {@code spec.cilium} as it is, which is a CNP spec. A direction without rules becomes
 * Cilium's default-deny rule {@code [{}]}: an absent or empty list would leave that direction
 * unenforced, where the policy means "nothing is allowed".
 */
public final class CiliumNetworkPolicies {
  public static final String API_VERSION = CiliumNetworkPolicyType.API_VERSION;
  public static final String KIND = CiliumNetworkPolicyType.KIND;
  public static final ResourceDefinitionContext CONTEXT = CiliumNetworkPolicyType.CONTEXT;

  private CiliumNetworkPolicies() {}

  @SuppressWarnings("unchecked")
  public static GenericKubernetesResource desired(WorkloadNetworkPolicy wnp) {
    CiliumPolicy cilium = wnp.getSpec().getCilium();
    Map<String, Object> spec = Json.mapper().convertValue(cilium, Map.class);
    String direction = wnp.getSpec().getDirection() == Direction.Ingress ? "ingress" : "egress";
    Object rules = spec.get(direction);
    if (!(rules instanceof List<?> list) || list.isEmpty()) {
      spec.put(direction, List.of(Map.of()));
    }
    GenericKubernetesResource cnp = new GenericKubernetesResource();
    cnp.setApiVersion(API_VERSION);
    cnp.setKind(KIND);
    cnp.setMetadata(
        new ObjectMetaBuilder()
            .withName(wnp.getMetadata().getName())
            .withNamespace(wnp.getMetadata().getNamespace())
            .withLabels(Map.of(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE))
            .withOwnerReferences(Ownership.controllerReferenceTo(wnp))
            .build());
    cnp.setAdditionalProperty("spec", spec);
    return cnp;
  }

  /** Same spec, our label and owner: nothing to apply. */
  public static boolean matches(GenericKubernetesResource live, GenericKubernetesResource desired) {
    var mapper = Json.mapper();
    return mapper
            .valueToTree(live.getAdditionalProperties().get("spec"))
            .equals(mapper.valueToTree(desired.getAdditionalProperties().get("spec")))
        && Ownership.carriesOurMetadata(live, desired);
  }
}
