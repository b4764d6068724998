package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;

/**
 * The result of resolving one peer: an endpoint with its workload, or why there is none. The pod is
 * kept when one was found, so an Istio source can still be described by its identity.
 */
public record Resolution(FlowEndpoint endpoint, DropReason dropReason, Pod pod) {

  public static Resolution of(FlowEndpoint endpoint, Pod pod) {
    return new Resolution(endpoint, null, pod);
  }

  public static Resolution dropped(DropReason reason, Pod pod) {
    return new Resolution(null, reason, pod);
  }

  public static Resolution dropped(DropReason reason) {
    return new Resolution(null, reason, null);
  }

  /**
   * The same workload without the pod's name and IP: for aggregated flows (Goldmane) that stand for
   * every pod of a workload, not the one pod used to find it.
   */
  public Resolution withoutPodIdentity() {
    return endpoint == null
        ? this
        : new Resolution(endpoint.toBuilder().podName(null).ip(null).build(), null, pod);
  }

  public boolean resolved() {
    return endpoint != null;
  }
}
