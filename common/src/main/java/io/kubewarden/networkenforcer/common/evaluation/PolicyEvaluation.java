package io.kubewarden.networkenforcer.common.evaluation;

import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Direction;

/** Evaluates a flow against a proposal or policy spec, whichever its backend. */
public final class PolicyEvaluation {
  private PolicyEvaluation() {}

  /**
   * Kubernetes backend: the NetworkPolicy from the side of {@code spec.direction}. Istio backend:
   * inbound to {@code dst}; an Istio spec with direction Egress (rejected by the CRD) has no say.
   * Cilium backend: the CiliumNetworkPolicy from the side of {@code spec.direction}, DNS names
   * included.
   *
   * @throws IllegalArgumentException when the spec lacks its backend, direction or payload
   */
  public static Decision evaluate(
      PolicySpec spec, FlowEndpoint src, FlowEndpoint dst, Protocol protocol, int port) {
    if (spec == null || spec.getBackend() == null || spec.getDirection() == null) {
      throw new IllegalArgumentException("policy spec needs backend and direction");
    }
    switch (spec.getBackend()) {
      case kubernetes:
        if (spec.getKubernetes() == null) {
          throw new IllegalArgumentException("spec.kubernetes is required for backend kubernetes");
        }
        return NetworkPolicyEvaluator.evaluate(
            spec.getKubernetes(), spec.getDirection(), src, dst, protocol, port);
      case istio:
        if (spec.getIstio() == null) {
          throw new IllegalArgumentException("spec.istio is required for backend istio");
        }
        if (spec.getDirection() != Direction.Ingress) {
          return Decision.NOT_SELECTED;
        }
        return IstioPolicyEvaluator.evaluate(spec.getIstio(), src, dst, protocol, port);
      case cilium:
        if (spec.getCilium() == null) {
          throw new IllegalArgumentException("spec.cilium is required for backend cilium");
        }
        return CiliumPolicyEvaluator.evaluate(
            spec.getCilium(), spec.getDirection(), src, dst, protocol, port);
      default:
        throw new IllegalArgumentException("unsupported backend " + spec.getBackend());
    }
  }
}
