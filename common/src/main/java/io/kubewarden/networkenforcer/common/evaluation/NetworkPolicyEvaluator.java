package io.kubewarden.networkenforcer.common.evaluation;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Direction;

/**
 * Does a Kubernetes NetworkPolicySpec allow a flow? Full NetworkPolicy semantics (implementation
 * in progress).
 */
public final class NetworkPolicyEvaluator {
  private NetworkPolicyEvaluator() {}

  /**
   * Evaluates the flow {@code src -> dst} on {@code protocol}/{@code port} (0 = unknown) against the
   * spec, from the side of {@code direction}: for Ingress the policy's pods are {@code dst}, for
   * Egress {@code src}.
   */
  public static Decision evaluate(NetworkPolicySpec spec, Direction direction, FlowEndpoint src, FlowEndpoint dst,
      Protocol protocol, int port) {
    throw new UnsupportedOperationException("not implemented yet");
  }
}
