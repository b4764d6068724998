package io.kubewarden.networkenforcer.processor.violations;

import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;

/**
 * Builds the violation observation of one flow against one policy, with every field of a record.
 */
public final class ViolationFactory {

  private ViolationFactory() {}

  /**
   * @param direction the direction of the target the policy covers
   * @param records how many flow records the flow stands for (combined before the repartition)
   * @param action protect for a data-plane drop, monitor for a dry-run deny or a monitor-mode
   *     evaluation
   */
  public static ViolationObservation create(
      PolicySnapshot policy, Direction direction, FlowRecord flow, long records, Mode action) {
    // The data plane's named policy when it named one; otherwise our policy is the one violated.
    PolicyRef named = flow.denyingPolicy();
    boolean useNamed = named != null && named.name() != null && !named.name().isBlank();
    String denyingNamespace =
        useNamed && named.namespace() != null ? named.namespace() : policy.namespace();
    String denyingName = useNamed ? named.name() : policy.name();
    // ztunnel's policy log carries no port: the contract says 0 on Istio, always.
    int port = policy.backend() == Backend.istio ? 0 : flow.dstPort();
    // An aggregate's latest time: the writer keeps the latest timestamp of a repeated violation.
    return new ViolationObservation(
        policy.namespace(),
        policy.name(),
        flow.lastSeen(),
        endpoint(flow.src()),
        endpoint(flow.dst()),
        flow.protocol(),
        port,
        action,
        denyingNamespace,
        denyingName,
        flow.provider(),
        policy.backend(),
        direction,
        flow.count(),
        records,
        flow.http());
  }

  /**
   * The identity in the contract's prefix-free form {@code cluster.local/ns/<ns>/sa/<sa>} (no
   * {@code spiffe://}).
   */
  static ViolationEndpoint endpoint(FlowEndpoint e) {
    // A Job peer has a name and a selector but no workload kind: its owner is named as its key
    // names it.
    return new ViolationEndpoint(
        e.namespace(),
        e.ownerKind(),
        e.workloadName(),
        e.principal().orElse(null),
        e.workloadSelector());
  }
}
