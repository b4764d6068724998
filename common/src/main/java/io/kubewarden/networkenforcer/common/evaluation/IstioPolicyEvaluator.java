package io.kubewarden.networkenforcer.common.evaluation;

import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;

/** Does the reduced Istio ALLOW model allow a flow (inbound to {@code dst})? (implementation in progress) */
public final class IstioPolicyEvaluator {
  private IstioPolicyEvaluator() {}

  public static Decision evaluate(IstioPolicy policy, FlowEndpoint src, FlowEndpoint dst, Protocol protocol,
      int port) {
    throw new UnsupportedOperationException("not implemented yet");
  }
}
