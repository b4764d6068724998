package io.kubewarden.networkenforcer.writer.view;

import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.common.report.ReportModel.Workload;

/** The graph node of a violation record's source or destination. */
final class ViolationNodes {
  private ViolationNodes() {}

  /**
   * The node of a violation's source or destination: its owner workload, else its Istio identity.
   */
  static Workload endpointNode(ViolationEndpoint e) {
    if (e == null) {
      return new Workload("(unknown)", "(unknown)", "Peer", "(unknown)", false);
    }
    if (e.getOwnerKind() != null
        && !e.getOwnerKind().isBlank()
        && e.getOwnerName() != null
        && !e.getOwnerName().isBlank()
        && e.getNamespace() != null
        && !e.getNamespace().isBlank()) {
      return new Workload(
          e.getNamespace() + "/" + e.getOwnerKind() + "/" + e.getOwnerName(),
          e.getNamespace(),
          e.getOwnerKind(),
          e.getOwnerName(),
          false);
    }
    if (e.getIdentity() != null && !e.getIdentity().isBlank()) {
      return ReportModel.peerWorkload(e.getIdentity());
    }
    String ns =
        e.getNamespace() == null || e.getNamespace().isBlank()
            ? ReportModel.OUTSIDE_GROUP
            : e.getNamespace();
    String labels = SelectorText.of(e.getSelector());
    return new Workload(ns + "/Pods/" + labels, ns, "Pods", labels, false);
  }
}
