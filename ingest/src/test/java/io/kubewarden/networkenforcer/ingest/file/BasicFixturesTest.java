package io.kubewarden.networkenforcer.ingest.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterSink;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every capture in shared/fixtures/basic, resolved with its cluster-state.json. */
class BasicFixturesTest {
  private static ClusterIndex cluster;

  @BeforeAll
  static void loadCluster() {
    cluster = Fixtures.clusterState();
  }

  private record Edge(String src, String dst, Protocol protocol, int port) {
    static Edge of(FlowRecord r) {
      return new Edge(
          r.src().workload().map(w -> w.key()).orElse(r.src().identity()),
          r.dst().workload().map(w -> w.key()).orElse("outside " + r.dst().ip()),
          r.protocol(),
          r.dstPort());
    }
  }

  private static final Set<Edge> KUBERNETES_EDGES =
      Set.of(
          new Edge(
              "demo/Deployment/http-client", "demo/Deployment/http-server", Protocol.TCP, 18080),
          new Edge(
              "demo/Deployment/http-client", "demo/Deployment/http-server", Protocol.UDP, 18081),
          new Edge(
              "demo/Deployment/http-client", "kube-system/Deployment/coredns", Protocol.UDP, 53));

  @Test
  void hubbleCaptureGivesTheThreeConnectionsAndCountsEverythingElse() {
    List<FlowRecord> records = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CaptureSummary summary =
        new CaptureFile(
                cluster,
                "cluster.local",
                DeadLetterSink.discard(),
                new IngestMetrics(registry),
                Clock.systemUTC())
            .read(Fixtures.file("hubble-flows.jsonl"), Optional.empty(), records::add);

    assertThat(summary.format()).isEqualTo(CaptureFormat.HUBBLE);
    assertThat(summary.lines()).isEqualTo(34);
    assertThat(summary.badLines()).isZero();
    // One record per connection: 3 TCP connections (SYN at egress and ingress, then ACK) and 6 UDP
    // exchanges (egress and ingress) are seen 12 more times; plus the call to the internet.
    assertThat(summary.published()).isEqualTo(10).isEqualTo(records.size());
    assertThat(summary.dropped())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                DropReason.DUPLICATE_REPORT,
                12L,
                DropReason.REPLY,
                9L,
                DropReason.HOST,
                1L,
                DropReason.NOT_A_FLOW,
                2L));
    assertThat(registry.get("network.enforcer.ingest.hubble.lost.events").counter().count())
        .isEqualTo(42);
    assertThat(
            registry
                .get("network.enforcer.ingest.flows.dropped")
                .tag("reason", "reply")
                .counter()
                .count())
        .isEqualTo(9);

    FlowRecord internet =
        records.stream().filter(r -> r.dst().isExternal()).findFirst().orElseThrow();
    records.remove(internet);
    assertThat(records.stream().map(Edge::of).collect(Collectors.toSet()))
        .isEqualTo(KUBERNETES_EDGES);
    // The world peer is an end outside the cluster: its address and the DNS names Hubble resolved.
    assertThat(Edge.of(internet))
        .isEqualTo(
            new Edge("demo/Deployment/http-client", "outside 142.251.209.46", Protocol.TCP, 443));
    assertThat(internet.dst().external().dnsNames()).containsExactly("api.stripe.com");
    assertThat(internet.dst().namespace()).isNull();
    assertThat(internet.dst().workload()).isEmpty();
    assertThat(internet.reporter()).isEqualTo(Reporter.SOURCE);
    assertThat(records)
        .allSatisfy(
            r -> {
              assertThat(r.provider()).isEqualTo(Provider.cilium);
              assertThat(r.verdict()).isEqualTo(Verdict.FORWARDED);
              assertThat(r.partitionKey()).isEqualTo("demo/Deployment/http-client");
            });

    FlowRecord first = records.get(0);
    assertThat(first.time()).isEqualTo(Instant.parse("2026-08-03T15:40:01.575398922Z"));
    // Each connection was first seen leaving the client.
    assertThat(records).extracting(FlowRecord::reporter).containsOnly(Reporter.SOURCE);
    assertThat(first.count()).isEqualTo(1);
    assertClient(first.src(), true);
    assertThat(first.dst().podName()).isEqualTo("http-server-a7c45ae475-cf0f3");
    assertThat(first.dst().ip()).isEqualTo("10.244.1.103");
    assertThat(first.dst().serviceAccount()).isEqualTo("http-server-sa");
    assertThat(first.dst().workloadSelector())
        .isEqualTo(new LabelSelectorBuilder().addToMatchLabels("app", "http-server").build());
  }

  @Test
  void goldmaneCaptureCountsAllowedFlowsOnceFromTheFirstReport() {
    List<FlowRecord> records = new ArrayList<>();
    CaptureSummary summary =
        CaptureFile.read(
            Fixtures.file("goldmane-flows.jsonl"), Optional.empty(), cluster, records::add);

    assertThat(summary.format()).isEqualTo(CaptureFormat.GOLDMANE);
    assertThat(summary.lines()).isEqualTo(7);
    assertThat(summary.badLines()).isZero();
    assertThat(summary.dropped())
        .containsExactlyInAnyOrderEntriesOf(Map.of(DropReason.DUPLICATE_REPORT, 3L));
    assertThat(records).hasSize(4);
    // The call to the public network: only the source reports it, and Goldmane gives no address.
    FlowRecord internet =
        records.stream().filter(r -> r.dst().isExternal()).findFirst().orElseThrow();
    records.remove(internet);
    assertThat(internet.reporter()).isEqualTo(Reporter.SOURCE);
    assertThat(internet.dst().ip()).isNull();
    assertThat(internet.dst().external().network()).isEqualTo("pub");
    assertThat(internet.dstPort()).isEqualTo(443);
    assertThat(internet.src().workload().orElseThrow().key())
        .isEqualTo("demo/Deployment/http-client");
    assertThat(records.stream().map(Edge::of).collect(Collectors.toSet()))
        .isEqualTo(KUBERNETES_EDGES);
    assertThat(records)
        .allSatisfy(
            r -> {
              assertThat(r.provider()).isEqualTo(Provider.calico);
              // The client's node reports first in the fixture; the server's copy of the interval
              // is the duplicate.
              assertThat(r.reporter()).isEqualTo(Reporter.SOURCE);
              assertThat(r.verdict()).isEqualTo(Verdict.FORWARDED);
              assertThat(r.count()).isEqualTo(3);
              assertThat(r.denyingPolicy()).isNull();
            });
    FlowRecord tcp =
        records.stream().filter(r -> r.protocol() == Protocol.TCP).findFirst().orElseThrow();
    assertThat(tcp.time()).isEqualTo(Instant.ofEpochSecond(1785771600L));
    // Aggregated over every pod of the workload: no single pod name or IP.
    assertClient(tcp.src(), false);
    FlowRecord dns = records.stream().filter(r -> r.dstPort() == 53).findFirst().orElseThrow();
    assertThat(dns.dst().namespace()).isEqualTo("kube-system");
    assertThat(dns.dst().serviceAccount()).isEqualTo("coredns");
    assertThat(dns.dst().namespaceLabels())
        .containsEntry("kubernetes.io/metadata.name", "kube-system");
  }

  @Test
  void ztunnelCaptureLearnsOnlyTheInboundMutualTlsConnection() {
    List<FlowRecord> records = new ArrayList<>();
    CaptureSummary summary =
        CaptureFile.read(Fixtures.file("ztunnel.jsonl"), Optional.empty(), cluster, records::add);

    assertThat(summary.format()).isEqualTo(CaptureFormat.ZTUNNEL);
    assertThat(summary.lines()).isEqualTo(4);
    assertThat(summary.badLines()).isZero();
    assertThat(summary.dropped())
        .containsExactlyInAnyOrderEntriesOf(Map.of(DropReason.IGNORED_LOG, 3L));
    assertThat(records).hasSize(1);
    FlowRecord r = records.get(0);
    assertThat(r.provider()).isEqualTo(Provider.istio);
    assertThat(r.provider().backend().name()).isEqualTo("istio");
    assertThat(r.protocol()).isEqualTo(Protocol.TCP);
    assertThat(r.dstPort()).isEqualTo(18080);
    assertThat(r.verdict()).isEqualTo(Verdict.FORWARDED);
    assertThat(r.reporter()).isEqualTo(Reporter.DESTINATION);
    assertThat(r.time()).isEqualTo(Instant.parse("2026-08-03T15:40:01.081390Z"));
    assertThat(r.src().principal()).contains("cluster.local/ns/demo/sa/http-client-sa");
    assertThat(r.dst().identity()).isEqualTo("spiffe://cluster.local/ns/demo/sa/http-server-sa");
    assertClient(r.src(), true);
    assertThat(r.dst().workload().orElseThrow().key()).isEqualTo("demo/Deployment/http-server");
  }

  @Test
  void clusterStateResolvesEveryWorkloadOfTheScenario() {
    assertThat(cluster.podCount()).isEqualTo(3);
    assertThat(cluster.podByIp("10.244.0.20"))
        .get()
        .extracting(p -> p.getMetadata().getName())
        .isEqualTo("coredns-f33ebdf0e5-404e1");
    assertThat(cluster.podsByGenerateName("demo", "http-client-29e797ec96-")).hasSize(1);
    assertThat(cluster.namespaceLabels("demo"))
        .containsEntry("kubernetes.io/metadata.name", "demo");
  }

  private static void assertClient(FlowEndpoint src, boolean withPod) {
    assertThat(src.namespace()).isEqualTo("demo");
    assertThat(src.workloadKind()).isEqualTo(WorkloadKind.Deployment);
    assertThat(src.workloadName()).isEqualTo("http-client");
    assertThat(src.workloadSelector())
        .isEqualTo(new LabelSelectorBuilder().addToMatchLabels("app", "http-client").build());
    assertThat(src.podLabels())
        .containsEntry("app", "http-client")
        .containsEntry("pod-template-hash", "29e797ec96");
    assertThat(src.namespaceLabels()).containsEntry("kubernetes.io/metadata.name", "demo");
    assertThat(src.serviceAccount()).isEqualTo("http-client-sa");
    if (withPod) {
      assertThat(src.podName()).isEqualTo("http-client-29e797ec96-1e669");
      assertThat(src.ip()).isEqualTo("10.244.2.244");
    } else {
      assertThat(src.podName()).isNull();
      assertThat(src.ip()).isNull();
    }
  }
}
