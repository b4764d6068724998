package io.kubewarden.networkenforcer.processor.evaluation;

import io.kubewarden.networkenforcer.common.evaluation.Decision;
import io.kubewarden.networkenforcer.common.evaluation.NetworkPolicyEvaluator;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.policy.PolicySnapshot;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes backend in monitor mode: no NetworkPolicy exists, so the data plane forwards
 * everything; each forwarded flow of the target is evaluated in software against the policy's
 * full NetworkPolicy semantics. Istio monitor mode needs none of this: ztunnel evaluates the
 * dry-run AuthorizationPolicy itself and logs its denies.
 */
public final class MonitorModeEvaluation {
  private static final Logger LOG = LoggerFactory.getLogger(MonitorModeEvaluation.class);

  private final ProcessorMetrics metrics;

  public MonitorModeEvaluation(ProcessorMetrics metrics) {
    this.metrics = metrics;
  }

  /** Whether this policy's forwarded flows are evaluated here. */
  public static boolean applies(PolicySnapshot policy) {
    return policy.backend() == Backend.kubernetes && policy.mode() == Mode.monitor
        && policy.spec().getKubernetes() != null;
  }

  /**
   * True when the policy does not allow the forwarded flow. UNDETERMINED is counted and is no
   * violation; an evaluator failure is logged and counted, never fatal to the stream.
   */
  public boolean denies(PolicySnapshot policy, Direction direction, FlowRecord flow) {
    Decision decision;
    try {
      decision = NetworkPolicyEvaluator.evaluate(policy.spec().getKubernetes(), direction, flow.src(), flow.dst(),
          flow.protocol(), flow.dstPort());
    } catch (RuntimeException e) {
      metrics.evaluationFailed();
      LOG.warn("cannot evaluate a flow against policy {}/{}: {}", policy.namespace(), policy.name(), e.toString());
      return false;
    }
    if (decision == Decision.UNDETERMINED) {
      metrics.undetermined();
    }
    return Optional.ofNullable(decision).map(d -> d == Decision.DENIED).orElse(false);
  }
}
