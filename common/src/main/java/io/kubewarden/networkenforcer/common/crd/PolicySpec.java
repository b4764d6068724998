package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.Objects;

/**
 * The spec both kinds share: a backend, exactly one payload of that backend, the target workload
 * and the direction. The CEL rules here are the seven of the API contract.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "(self.backend == 'kubernetes' && has(self.kubernetes) && !has(self.istio)"
            + " && !has(self.cilium))"
            + " || (self.backend == 'istio' && has(self.istio) && !has(self.kubernetes)"
            + " && !has(self.cilium))"
            + " || (self.backend == 'cilium' && has(self.cilium) && !has(self.kubernetes)"
            + " && !has(self.istio))",
    message =
        "exactly one of spec.kubernetes, spec.istio or spec.cilium must be set, and it must match"
            + " spec.backend")
@ValidationRule(
    value =
        "self.backend != 'kubernetes' || !has(self.kubernetes) || (has(self.kubernetes.podSelector)"
            + " && ((has(self.kubernetes.podSelector.matchLabels) && size(self.kubernetes.podSelector.matchLabels) > 0)"
            + " || (has(self.kubernetes.podSelector.matchExpressions) && size(self.kubernetes.podSelector.matchExpressions) > 0)))",
    message = "spec.kubernetes.podSelector must have matchLabels or matchExpressions")
@ValidationRule(
    value =
        "self.backend != 'istio' || !has(self.istio) || (has(self.istio.selector)"
            + " && ((has(self.istio.selector.matchLabels) && size(self.istio.selector.matchLabels) > 0)"
            + " || (has(self.istio.selector.matchExpressions) && size(self.istio.selector.matchExpressions) > 0)))",
    message = "spec.istio.selector must not be empty")
@ValidationRule(
    value = "self.backend != 'istio' || self.direction == 'Ingress'",
    message =
        "the istio backend supports direction Ingress only (ztunnel enforces inbound traffic)")
@ValidationRule(
    value =
        "self.backend != 'kubernetes' || !has(self.kubernetes)"
            + " || (has(self.kubernetes.policyTypes) && self.kubernetes.policyTypes == [self.direction])",
    message = "spec.kubernetes.policyTypes must be exactly [spec.direction]")
@ValidationRule(
    value =
        "self.backend != 'cilium' || !has(self.cilium) || (has(self.cilium.endpointSelector)"
            + " && ((has(self.cilium.endpointSelector.matchLabels) && size(self.cilium.endpointSelector.matchLabels) > 0)"
            + " || (has(self.cilium.endpointSelector.matchExpressions) && size(self.cilium.endpointSelector.matchExpressions) > 0)))",
    message = "spec.cilium.endpointSelector must have matchLabels or matchExpressions")
@ValidationRule(
    value =
        "self.backend != 'cilium' || !has(self.cilium)"
            + " || (self.direction == 'Ingress' ? !has(self.cilium.egress) : !has(self.cilium.ingress))",
    message = "spec.cilium may carry rules of spec.direction only")
public abstract class PolicySpec {

  @Required
  @ValidationRule(value = "self == oldSelf", message = "spec.backend is immutable")
  @JsonPropertyDescription(
      "The policy model: kubernetes (a NetworkPolicy), istio (an AuthorizationPolicy) or cilium"
          + " (a CiliumNetworkPolicy). Immutable.")
  private Backend backend;

  @JsonPropertyDescription(
      "The NetworkPolicy spec to enforce; set exactly when backend is kubernetes.")
  private NetworkPolicySpec kubernetes;

  @JsonPropertyDescription(
      "The AuthorizationPolicy (ALLOW) to enforce; set exactly when backend is istio.")
  private IstioPolicy istio;

  @JsonPropertyDescription(
      "The CiliumNetworkPolicy spec (cilium.io/v2) to enforce; set exactly when backend is cilium.")
  private CiliumPolicy cilium;

  @Required
  @JsonPropertyDescription("The workload this allow-list is for, in the same namespace.")
  private TargetRef targetRef;

  @Required
  @JsonPropertyDescription(
      "The traffic direction covered: Ingress or Egress (istio: Ingress only).")
  private Direction direction;

  public Backend getBackend() {
    return backend;
  }

  public void setBackend(Backend backend) {
    this.backend = backend;
  }

  public NetworkPolicySpec getKubernetes() {
    return kubernetes;
  }

  public void setKubernetes(NetworkPolicySpec kubernetes) {
    this.kubernetes = kubernetes;
  }

  public IstioPolicy getIstio() {
    return istio;
  }

  public void setIstio(IstioPolicy istio) {
    this.istio = istio;
  }

  public CiliumPolicy getCilium() {
    return cilium;
  }

  public void setCilium(CiliumPolicy cilium) {
    this.cilium = cilium;
  }

  public TargetRef getTargetRef() {
    return targetRef;
  }

  public void setTargetRef(TargetRef targetRef) {
    this.targetRef = targetRef;
  }

  public Direction getDirection() {
    return direction;
  }

  public void setDirection(Direction direction) {
    this.direction = direction;
  }

  /** Copies the fields shared by both kinds from another spec (used on promotion). */
  public void copySharedFrom(PolicySpec other) {
    backend = other.backend;
    kubernetes = other.kubernetes;
    istio = other.istio;
    cilium = other.cilium;
    targetRef = other.targetRef;
    direction = other.direction;
  }

  /** Whether the payload of the other spec (backend, payload, target, direction) equals ours. */
  @JsonIgnore
  public boolean sameAllowListAs(PolicySpec other) {
    return other != null
        && backend == other.backend
        && direction == other.direction
        && Objects.equals(targetRef, other.targetRef)
        && Objects.equals(kubernetes, other.kubernetes)
        && Objects.equals(istio, other.istio)
        && Objects.equals(cilium, other.cilium);
  }

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && sameAllowListAs((PolicySpec) o);
  }

  @Override
  public int hashCode() {
    return Objects.hash(backend, kubernetes, istio, cilium, targetRef, direction);
  }
}
