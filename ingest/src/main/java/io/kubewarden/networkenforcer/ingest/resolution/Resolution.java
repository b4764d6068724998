package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;

/**
 * The result of resolving one peer: an endpoint with its workload, or why there is none. The pod is
 * kept when one was found, so an Istio source can still be described by its identity.
 *
 * @param labelPeer when dropped because no workload could be inferred: the end as known by its
 *     namespace and labels ({@link FlowEndpoint#labelsOnly()}), usable only as the peer of a known
 *     workload (see {@link LabelOnlyPeer}); null otherwise
 */
public record Resolution(
    FlowEndpoint endpoint, DropReason dropReason, Pod pod, FlowEndpoint labelPeer) {

  public Resolution(FlowEndpoint endpoint, DropReason dropReason, Pod pod) {
    this(endpoint, dropReason, pod, null);
  }

  public static Resolution of(FlowEndpoint endpoint, Pod pod) {
    return new Resolution(endpoint, null, pod);
  }

  /** Dropped, with the end as its labels know it (a peer, never a target). */
  public static Resolution droppedWithLabels(DropReason reason, FlowEndpoint labelPeer) {
    return new Resolution(null, reason, null, labelPeer);
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
