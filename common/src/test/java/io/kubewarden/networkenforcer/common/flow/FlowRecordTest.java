package io.kubewarden.networkenforcer.common.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlowRecordTest {

  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");
  private static final FlowEndpoint WEB =
      FlowEndpoint.builder().namespace("shop").workload(WorkloadKind.Deployment, "web").build();
  private static final FlowEndpoint IDENTITY_ONLY =
      FlowEndpoint.builder()
          .namespace("shop")
          .identity("spiffe://cluster.local/ns/shop/sa/job")
          .build();

  @Test
  void partitionKeyIsTheSourceWorkloadOrElseTheDestination() {
    FlowEndpoint db =
        FlowEndpoint.builder().namespace("data").workload(WorkloadKind.StatefulSet, "db").build();
    assertThat(
            new FlowRecord(T, Provider.cilium, Protocol.TCP, 5432, WEB, db, null, null, 1, null)
                .partitionKey())
        .isEqualTo("shop/Deployment/web");
    assertThat(
            new FlowRecord(
                    T, Provider.istio, Protocol.TCP, 0, IDENTITY_ONLY, db, null, null, 1, null)
                .partitionKey())
        .isEqualTo("data/StatefulSet/db");
    assertThat(
            new FlowRecord(
                    T,
                    Provider.istio,
                    Protocol.TCP,
                    0,
                    IDENTITY_ONLY,
                    IDENTITY_ONLY,
                    null,
                    null,
                    1,
                    null)
                .partitionKey())
        .isEqualTo("shop/spiffe://cluster.local/ns/shop/sa/job");
  }

  @Test
  void constructorValidatesAndDefaults() {
    assertThatThrownBy(
            () ->
                new FlowRecord(
                    T, Provider.file, Protocol.TCP, 65536, WEB, WEB, null, null, 1, null))
        .hasMessage("dstPort out of range: 65536");
    assertThatThrownBy(
            () -> new FlowRecord(T, Provider.file, Protocol.TCP, -1, WEB, WEB, null, null, 1, null))
        .hasMessage("dstPort out of range: -1");
    assertThatThrownBy(
            () ->
                new FlowRecord(T, Provider.file, Protocol.TCP, 80, WEB, null, null, null, 1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("dst");
    FlowRecord f =
        new FlowRecord(T, Provider.file, Protocol.UDP, 65535, WEB, WEB, null, null, -3, null);
    assertThat(f.count()).isEqualTo(1);
    assertThat(f.verdict()).isEqualTo(Verdict.FORWARDED);
    assertThat(f.reporter()).isEqualTo(Reporter.UNKNOWN);
  }

  @Test
  void endpointHelpers() {
    assertThat(WEB.workload()).contains(new WorkloadRef("shop", WorkloadKind.Deployment, "web"));
    assertThat(IDENTITY_ONLY.workload()).isEmpty();
    assertThat(IDENTITY_ONLY.principal()).contains("cluster.local/ns/shop/sa/job");
    assertThat(WEB.principal()).isEmpty();
    assertThat(WEB.effectiveNamespaceLabels())
        .containsExactly(Map.entry("kubernetes.io/metadata.name", "shop"));
    FlowEndpoint labelled =
        WEB.toBuilder()
            .namespaceLabels(Map.of("kubernetes.io/metadata.name", "shop", "t", "a"))
            .build();
    assertThat(labelled.effectiveNamespaceLabels()).isEqualTo(labelled.namespaceLabels());
    assertThat(labelled.toBuilder().build()).isEqualTo(labelled);
  }

  @Test
  void enumsParseWhatProvidersSend() {
    assertThat(Protocol.parse(" tcp ")).contains(Protocol.TCP);
    assertThat(Protocol.parse("ICMP")).isEmpty();
    assertThat(Protocol.parse(null)).isEmpty();
    assertThat(Provider.parse("calico").backend()).isEqualTo(Backend.kubernetes);
    assertThat(Provider.parse("istio").backend()).isEqualTo(Backend.istio);
    assertThatThrownBy(() -> Provider.parse("linkerd")).hasMessageContaining("linkerd");
  }
}
