package io.kubewarden.networkenforcer.common.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How the report names a rule's peer: workloads, and pods known only by their labels. */
class PeerWorkloadTest {
  @Test
  void aLabelOnlyPeerIsInItsNamespaceNamedByItsLabelsEvenWithASlashInAKey() {
    assertThat(ReportModel.peerWorkload("shop/Labels/app.kubernetes.io/name=x,run=debug"))
        .isEqualTo(
            new ReportModel.Workload(
                "shop/Labels/app.kubernetes.io/name=x,run=debug",
                "shop",
                "Labels",
                "app.kubernetes.io/name=x,run=debug",
                false));
    assertThat(ReportModel.peerWorkload("shop/Deployment/backend"))
        .isEqualTo(
            new ReportModel.Workload(
                "shop/Deployment/backend", "shop", "Deployment", "backend", false));
  }
}
