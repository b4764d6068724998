package io.kubewarden.networkenforcer.cli.simulate;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.evaluation.CiliumPolicyEvaluator;
import io.kubewarden.networkenforcer.common.evaluation.Decision;
import io.kubewarden.networkenforcer.common.evaluation.IstioPolicyEvaluator;
import io.kubewarden.networkenforcer.common.evaluation.NetworkPolicyEvaluator;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One policy of {@code --policy}, as the project's evaluators read it. Kubernetes kinds (a
 * NetworkPolicy, or a WNPP/WNP with the kubernetes backend) and Istio kinds (an ALLOW
 * AuthorizationPolicy, or a WNPP/WNP with the istio backend) form two layers, as on a real cluster
 * where both would be enforced. A WNPP/WNP with the cilium backend (a CiliumNetworkPolicy) is of
 * the Kubernetes layer: Cilium enforces NetworkPolicies and CiliumNetworkPolicies together, their
 * allows adding up.
 *
 * @param label how the report names it, for example {@code NetworkPolicy shop/allow-web}
 * @param namespace the policy's namespace: it selects pods of this namespace only
 * @param target a WNPP/WNP selects the flows of its {@code targetRef} workload only
 */
record CandidatePolicy(
    String label,
    String namespace,
    Optional<WorkloadRef> target,
    Optional<Direction> direction,
    NetworkPolicySpec kubernetes,
    IstioPolicy istio,
    CiliumPolicy cilium,
    List<Rule> rules) {

  /** Which enforcement point the policy belongs to. */
  enum Layer {
    /** NetworkPolicies, and CiliumNetworkPolicies beside them. */
    KUBERNETES,
    ISTIO
  }

  /**
   * One rule alone, so the report can say which rules matched no flow.
   *
   * @param index position in its list ({@code ingress}, {@code egress} or {@code rules})
   * @param text the rule as compact JSON
   */
  record Rule(
      Direction direction,
      int index,
      String text,
      NetworkPolicySpec kubernetesAlone,
      IstioPolicy istioAlone,
      CiliumPolicy ciliumAlone) {}

  CandidatePolicy {
    Objects.requireNonNull(label);
    Objects.requireNonNull(namespace);
    if ((kubernetes != null ? 1 : 0) + (istio != null ? 1 : 0) + (cilium != null ? 1 : 0) != 1) {
      throw new IllegalArgumentException("exactly one of kubernetes, istio or cilium");
    }
  }

  static CandidatePolicy kubernetes(
      String label,
      String namespace,
      Optional<WorkloadRef> target,
      Optional<Direction> direction,
      NetworkPolicySpec spec) {
    List<Rule> rules = new ArrayList<>();
    List<NetworkPolicyIngressRule> ingress =
        spec.getIngress() == null ? List.of() : spec.getIngress();
    for (int i = 0; i < ingress.size(); i++) {
      NetworkPolicySpec alone =
          new NetworkPolicySpecBuilder(spec).withIngress(ingress.get(i)).build();
      rules.add(new Rule(Direction.Ingress, i, json(ingress.get(i)), alone, null, null));
    }
    List<NetworkPolicyEgressRule> egress = spec.getEgress() == null ? List.of() : spec.getEgress();
    for (int i = 0; i < egress.size(); i++) {
      NetworkPolicySpec alone =
          new NetworkPolicySpecBuilder(spec).withEgress(egress.get(i)).build();
      rules.add(new Rule(Direction.Egress, i, json(egress.get(i)), alone, null, null));
    }
    return new CandidatePolicy(
        label, namespace, target, direction, spec, null, null, List.copyOf(rules));
  }

  /** A cilium-backend WNPP/WNP: its CiliumNetworkPolicy, for the target's direction. */
  static CandidatePolicy cilium(
      String label,
      String namespace,
      Optional<WorkloadRef> target,
      Optional<Direction> direction,
      CiliumPolicy spec) {
    List<Rule> rules = new ArrayList<>();
    List<CiliumPolicy.IngressRule> ingress =
        spec.getIngress() == null ? List.of() : spec.getIngress();
    for (int i = 0; i < ingress.size(); i++) {
      CiliumPolicy alone =
          new CiliumPolicy(spec.getEndpointSelector(), List.of(ingress.get(i)), null);
      rules.add(new Rule(Direction.Ingress, i, json(ingress.get(i)), null, null, alone));
    }
    List<CiliumPolicy.EgressRule> egress = spec.getEgress() == null ? List.of() : spec.getEgress();
    for (int i = 0; i < egress.size(); i++) {
      CiliumPolicy alone =
          new CiliumPolicy(spec.getEndpointSelector(), null, List.of(egress.get(i)));
      rules.add(new Rule(Direction.Egress, i, json(egress.get(i)), null, null, alone));
    }
    return new CandidatePolicy(
        label, namespace, target, direction, null, null, spec, List.copyOf(rules));
  }

  static CandidatePolicy istio(
      String label, String namespace, Optional<WorkloadRef> target, IstioPolicy policy) {
    List<Rule> rules = new ArrayList<>();
    List<IstioPolicy.Rule> all = policy.getRules() == null ? List.of() : policy.getRules();
    for (int i = 0; i < all.size(); i++) {
      rules.add(
          new Rule(
              Direction.Ingress,
              i,
              json(all.get(i)),
              null,
              new IstioPolicy(policy.getSelector(), List.of(all.get(i))),
              null));
    }
    return new CandidatePolicy(
        label,
        namespace,
        target,
        Optional.of(Direction.Ingress),
        null,
        policy,
        null,
        List.copyOf(rules));
  }

  Layer layer() {
    return istio == null ? Layer.KUBERNETES : Layer.ISTIO;
  }

  /**
   * The decision for the flow seen from {@code direction}'s side; NOT_SELECTED when the policy has
   * no say.
   */
  Decision evaluate(FlowRecord flow, Direction side) {
    if (!selects(flow, side)) {
      return Decision.NOT_SELECTED;
    }
    return decide(kubernetes, istio, cilium, flow, side);
  }

  /**
   * Whether this rule alone allows the flow (only meaningful where {@link #evaluate} is not
   * NOT_SELECTED).
   */
  boolean ruleAllows(Rule rule, FlowRecord flow) {
    return decide(
            rule.kubernetesAlone(), rule.istioAlone(), rule.ciliumAlone(), flow, rule.direction())
        == Decision.ALLOWED;
  }

  private boolean selects(FlowRecord flow, Direction side) {
    if (direction.isPresent() && direction.get() != side) {
      return false;
    }
    FlowEndpoint own = side == Direction.Ingress ? flow.dst() : flow.src();
    if (!namespace.equals(own.namespace())) {
      return false;
    }
    return target.isEmpty() || own.workload().equals(target);
  }

  private static Decision decide(
      NetworkPolicySpec k8s, IstioPolicy ist, CiliumPolicy cil, FlowRecord flow, Direction side) {
    if (cil != null) {
      return CiliumPolicyEvaluator.evaluate(
          cil, side, flow.src(), flow.dst(), flow.protocol(), flow.dstPort(), flow.http());
    }
    if (k8s != null) {
      return NetworkPolicyEvaluator.evaluate(
          k8s, side, flow.src(), flow.dst(), flow.protocol(), flow.dstPort());
    }
    if (side != Direction.Ingress) {
      return Decision.NOT_SELECTED; // ztunnel enforces inbound only
    }
    return IstioPolicyEvaluator.evaluate(
        ist, flow.src(), flow.dst(), flow.protocol(), flow.dstPort());
  }

  private static String json(Object rule) {
    try {
      return Json.mapper().writeValueAsString(rule);
    } catch (Exception e) {
      return String.valueOf(rule);
    }
  }
}
