package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import java.util.Map;
import java.util.Optional;

/**
 * An in-cluster end whose workload nobody names and the pod name cannot tell ({@code
 * ambiguous-workload}), typically a remote endpoint in a Hubble capture of Cilium before 1.15 (no
 * {@code workloads}), still has a namespace and pod labels. A NetworkPolicy peer is a selector, so
 * those labels are all the known end's rule needs: the flow is kept when the other end is a known
 * workload, with this end marked {@link FlowEndpoint#labelsOnly()} and its selectable labels as
 * selector. It teaches only the known end: with no workload, this end gets no proposal of its own.
 */
public final class LabelOnlyPeer {
  private LabelOnlyPeer() {}

  /**
   * The end as its labels know it; empty without a namespace or without a label that selects (an
   * empty selector would select every pod of the namespace).
   */
  public static Optional<FlowEndpoint> endpoint(
      String namespace,
      Map<String, String> podLabels,
      Map<String, String> namespaceLabels,
      String podName,
      String ip,
      String serviceAccount) {
    Map<String, String> selectable = GeneratedPodLabels.selectable(podLabels);
    if (namespace == null || namespace.isBlank() || selectable.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        FlowEndpoint.builder()
            .namespace(namespace)
            .workloadSelector(new LabelSelectorBuilder().withMatchLabels(selectable).build())
            .podLabels(podLabels)
            .namespaceLabels(namespaceLabels)
            .podName(podName)
            .ip(ip)
            .serviceAccount(serviceAccount)
            .labelsOnly(true)
            .build());
  }

  /**
   * {@code end} as the peer of {@code other}: its label-only form when it has one and {@code other}
   * resolved to a workload; otherwise {@code end} unchanged.
   */
  public static Resolution asPeerOf(Resolution end, Resolution other) {
    if (end.resolved()
        || end.labelPeer() == null
        || other == null
        || !other.resolved()
        || other.endpoint().workload().isEmpty()) {
      return end;
    }
    return Resolution.of(end.labelPeer(), end.pod());
  }
}
