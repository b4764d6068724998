package io.kubewarden.networkenforcer.processor.evaluation;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.evaluation.CiliumPolicyEvaluator;
import io.kubewarden.networkenforcer.common.evaluation.Decision;
import io.kubewarden.networkenforcer.common.evaluation.NetworkPolicyEvaluator;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes and Cilium backends in monitor mode: no NetworkPolicy (CiliumNetworkPolicy) exists, so
 * the data plane forwards everything; each forwarded flow of the target is evaluated in software
 * against the policy's full NetworkPolicy (CiliumNetworkPolicy, DNS names included) semantics.
 * Istio monitor mode needs none of this: ztunnel evaluates the dry-run AuthorizationPolicy itself
 * and logs its denies. The other NetworkPolicies of the namespace count too (their union decides,
 * as in Kubernetes).
 */
public final class MonitorModeEvaluation {
  private static final Logger LOG = LoggerFactory.getLogger(MonitorModeEvaluation.class);

  private final ProcessorMetrics metrics;

  public MonitorModeEvaluation(ProcessorMetrics metrics) {
    this.metrics = metrics;
  }

  /** Whether this policy's forwarded flows are evaluated here. */
  public static boolean applies(PolicySnapshot policy) {
    if (policy.mode() != Mode.monitor) {
      return false;
    }
    return policy.backend() == Backend.kubernetes && policy.spec().getKubernetes() != null
        || policy.backend() == Backend.cilium && policy.spec().getCilium() != null;
  }

  /**
   * True when the policy does not allow the forwarded flow. UNDETERMINED is counted and is no
   * violation; an evaluator failure is logged and counted, never fatal to the stream.
   */
  public boolean denies(PolicySnapshot policy, Direction direction, FlowRecord flow) {
    return denies(policy, direction, flow, List::of);
  }

  /**
   * True when neither the policy nor any of {@code others} (the other NetworkPolicies of the
   * policy's namespace) allows the flow: policies are additive, so what another policy selecting
   * the same pod allows stays allowed once this one is enforced. Others that do not select the pod,
   * or cannot decide, change nothing.
   */
  public boolean denies(
      PolicySnapshot policy,
      Direction direction,
      FlowRecord flow,
      Supplier<List<NetworkPolicySpec>> others) {
    if (!deniedByItself(policy, direction, flow)) {
      return false;
    }
    // Looked up only for a flow the policy denies: the common case (allowed) costs nothing more.
    for (NetworkPolicySpec other : others.get()) {
      Decision decision;
      try {
        decision =
            NetworkPolicyEvaluator.evaluate(
                other, direction, flow.src(), flow.dst(), flow.protocol(), flow.dstPort());
      } catch (RuntimeException e) {
        continue;
      }
      if (decision == Decision.ALLOWED) {
        metrics.allowedByAnotherPolicy();
        return false;
      }
    }
    return true;
  }

  private boolean deniedByItself(PolicySnapshot policy, Direction direction, FlowRecord flow) {
    Decision decision;
    try {
      decision =
          policy.backend() == Backend.cilium
              ? CiliumPolicyEvaluator.evaluate(
                  policy.spec().getCilium(),
                  direction,
                  flow.src(),
                  flow.dst(),
                  flow.protocol(),
                  flow.dstPort(),
                  flow.http())
              : NetworkPolicyEvaluator.evaluate(
                  policy.spec().getKubernetes(),
                  direction,
                  flow.src(),
                  flow.dst(),
                  flow.protocol(),
                  flow.dstPort());
    } catch (RuntimeException e) {
      metrics.evaluationFailed();
      LOG.warn(
          "cannot evaluate a flow against policy {}/{}: {}",
          policy.namespace(),
          policy.name(),
          e.toString());
      return false;
    }
    if (decision == Decision.UNDETERMINED) {
      metrics.undetermined();
    }
    return Optional.ofNullable(decision).map(d -> d == Decision.DENIED).orElse(false);
  }
}
