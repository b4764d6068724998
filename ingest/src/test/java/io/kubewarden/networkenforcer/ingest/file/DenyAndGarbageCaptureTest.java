package io.kubewarden.networkenforcer.ingest.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Denies from each provider, and input that is broken in every way we could think of. */
class DenyAndGarbageCaptureTest {
  private static final String CLIENT =
      "\"namespace\":\"demo\",\"pod_name\":\"http-client-29e797ec96-1e669\","
          + "\"identity\":20000,\"workloads\":[{\"name\":\"http-client\",\"kind\":\"Deployment\"}]";
  private static final String SERVER =
      "\"namespace\":\"demo\",\"pod_name\":\"http-server-a7c45ae475-cf0f3\","
          + "\"identity\":20007,\"workloads\":[{\"name\":\"http-server\",\"kind\":\"Deployment\"}]";
  private static final String IPS =
      "\"IP\":{\"source\":\"10.244.2.244\",\"destination\":\"10.244.1.103\"}";

  private static ClusterIndex cluster;

  @TempDir Path dir;

  @BeforeAll
  static void loadCluster() {
    cluster = Fixtures.clusterState();
  }

  private record Read(
      CaptureSummary summary,
      List<FlowRecord> records,
      List<String> deadLetters,
      SimpleMeterRegistry registry) {}

  private Read read(String... lines) throws Exception {
    Path file = Files.write(dir.resolve("capture.jsonl"), List.of(lines));
    List<FlowRecord> records = new ArrayList<>();
    List<String> deadLetters = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CaptureSummary summary =
        new CaptureFile(
                cluster,
                "cluster.local",
                (source, reason, payload, error) -> deadLetters.add(source + ": " + reason),
                new IngestMetrics(registry),
                Clock.systemUTC())
            .read(file, Optional.empty(), records::add);
    return new Read(summary, records, deadLetters, registry);
  }

  @Test
  void hubblePolicyDropsBecomeDeniesOnTheEnforcingSide() throws Exception {
    Read r =
        read(
            "{\"flow\":{\"time\":\"2026-08-03T15:41:00Z\",\"verdict\":\"DROPPED\",\"drop_reason_desc\":\"POLICY_DENY\","
                + IPS
                + ",\"l4\":{\"TCP\":{\"source_port\":40000,\"destination_port\":18080,\"flags\":{\"SYN\":true}}},"
                + "\"source\":{"
                + CLIENT
                + "},\"destination\":{"
                + SERVER
                + "},\"Type\":\"L3_L4\",\"event_type\":{\"type\":5},"
                + "\"traffic_direction\":\"INGRESS\",\"ingress_denied_by\":[{\"name\":\"deny-x\",\"namespace\":\"demo\","
                + "\"kind\":\"CiliumNetworkPolicy\",\"revision\":\"12\"}]}}",
            "{\"flow\":{\"verdict\":\"DROPPED\",\"drop_reason_desc\":\"POLICY_DENIED\","
                + IPS
                + ",\"l4\":{\"UDP\":{\"source_port\":40000,\"destination_port\":18081}},\"source\":{"
                + CLIENT
                + "},\"destination\":{"
                + SERVER
                + "},\"traffic_direction\":\"EGRESS\",\"is_reply\":false}}",
            "{\"flow\":{\"verdict\":\"AUDIT\","
                + IPS
                + ",\"l4\":{\"TCP\":{\"destination_port\":18080}},\"source\":{"
                + CLIENT
                + "},\"destination\":{"
                + SERVER
                + "},\"traffic_direction\":\"INGRESS\"}}",
            // Dropped for a reason that is not a policy: not a violation.
            "{\"flow\":{\"verdict\":\"DROPPED\",\"drop_reason_desc\":\"CT_MAP_INSERTION_FAILED\","
                + IPS
                + ",\"l4\":{\"TCP\":{\"destination_port\":18080}},\"source\":{"
                + CLIENT
                + "},\"destination\":{"
                + SERVER
                + "}}}",
            // ICMP is not learned.
            "{\"flow\":{\"verdict\":\"FORWARDED\","
                + IPS
                + ",\"l4\":{\"ICMPv4\":{\"type\":8}},\"source\":{"
                + CLIENT
                + "},\"destination\":{"
                + SERVER
                + "}}}");
    assertThat(r.records()).hasSize(3);
    FlowRecord deny = r.records().get(0);
    assertThat(deny.verdict()).isEqualTo(Verdict.DENIED);
    assertThat(deny.reporter()).isEqualTo(Reporter.DESTINATION);
    assertThat(deny.denyingPolicy())
        .isEqualTo(new PolicyRef("CiliumNetworkPolicy", "demo", "deny-x"));
    FlowRecord egressDeny = r.records().get(1);
    assertThat(egressDeny.verdict()).isEqualTo(Verdict.DENIED);
    assertThat(egressDeny.reporter()).isEqualTo(Reporter.SOURCE);
    assertThat(egressDeny.denyingPolicy()).isNull();
    assertThat(egressDeny.dstPort()).isEqualTo(18081);
    assertThat(r.records().get(2).verdict()).isEqualTo(Verdict.DRY_RUN_DENIED);
    assertThat(r.summary().dropped())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(DropReason.NON_POLICY_DROP, 1L, DropReason.UNSUPPORTED_PROTOCOL, 1L));
  }

  @Test
  void goldmaneDeniesAreKeptFromBothReportersWithTheTriggeringPolicy() throws Exception {
    String key =
        "\"source_name\":\"http-client-29e797ec96-*\",\"source_namespace\":\"demo\","
            + "\"source_type\":\"WorkloadEndpoint\",\"dest_name\":\"http-server-a7c45ae475-*\",\"dest_namespace\":\"demo\","
            + "\"dest_type\":\"WorkloadEndpoint\",\"dest_port\":\"18080\",\"proto\":\"tcp\",\"action\":\"Deny\","
            + "\"policies\":{\"enforced_policies\":[{\"kind\":\"EndOfTier\",\"tier\":\"default\",\"action\":\"Deny\","
            + "\"policy_index\":\"0\",\"rule_index\":\"-1\",\"trigger\":{\"kind\":\"NetworkPolicy\",\"namespace\":\"demo\","
            + "\"name\":\"server-isolate\",\"tier\":\"default\"}}]}";
    Read r =
        read(
            "{\"id\":\"9\",\"flow\":{\"Key\":{"
                + key
                + ",\"reporter\":\"Dst\"},\"start_time\":\"1785771600\","
                + "\"num_connections_started\":\"4\"}}",
            "{\"id\":\"10\",\"flow\":{\"Key\":{"
                + key
                + ",\"reporter\":\"Src\"},\"start_time\":\"1785771600\","
                + "\"num_connections_started\":\"0\"}}",
            "{\"id\":\"11\",\"flow\":{\"Key\":{"
                + key.replace("\"tcp\"", "\"icmp\"")
                + ",\"reporter\":\"Dst\"}}}",
            // An enum value newer than ours reads as unspecified: counted, not fatal.
            "{\"id\":\"12\",\"flow\":{\"Key\":{"
                + key.replace(
                    "\"WorkloadEndpoint\",\"dest_name\"", "\"SomeFutureEndpoint\",\"dest_name\"")
                + ",\"reporter\":\"Dst\"}}}",
            "{\"id\":\"13\",\"flow\":{\"start_time\":\"1\",\"Key\":{}}}");
    assertThat(r.records()).hasSize(2);
    assertThat(r.records())
        .extracting(FlowRecord::reporter)
        .containsExactly(Reporter.DESTINATION, Reporter.SOURCE);
    assertThat(r.records())
        .allSatisfy(
            f -> {
              assertThat(f.verdict()).isEqualTo(Verdict.DENIED);
              assertThat(f.denyingPolicy())
                  .isEqualTo(new PolicyRef("NetworkPolicy", "demo", "server-isolate"));
            });
    assertThat(r.records().get(0).count()).isEqualTo(4);
    assertThat(r.records().get(1).count()).isEqualTo(1);
    assertThat(r.summary().dropped())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(DropReason.UNSUPPORTED_PROTOCOL, 1L, DropReason.INCOMPLETE, 2L));
  }

  @Test
  void ztunnelAuthorizationLinesBecomeDeniesResolvedByPeerIpAndProxyWorkload() throws Exception {
    String span =
        "\"proxy\":{\"wl\":\"demo/http-server-a7c45ae475-cf0f3\"},"
            + "\"inbound\":{\"id\":\"a050131fa769a20e255b9840bf445424\",\"peer\":\"10.244.2.244:49084\"}";
    Read r =
        read(
            "{\"level\":\"info\",\"time\":\"2026-08-03T15:34:57.746680Z\",\"scope\":\"ztunnel::state\","
                + "\"message\":\"dry-run: deny policy match\",\"policy\":\"demo/deny-http-server-monitor\","
                + span
                + "}",
            "{\"level\":\"info\",\"time\":\"2026-08-03T15:39:07.536444Z\",\"scope\":\"ztunnel::state\","
                + "\"message\":\"deny policy match\",\"policy\":\"demo/deny-http-server-protect\","
                + span
                + "}",
            "{\"level\":\"info\",\"scope\":\"ztunnel::state\",\"message\":\"no allow policies matched\","
                + span
                + "}",
            "{\"level\":\"info\",\"scope\":\"ztunnel::state\",\"message\":\"allow policy match\",\"policy\":\"demo/a\","
                + span
                + "}",
            // The failed access log of the denied connection: already reported by the authorization
            // line.
            "{\"level\":\"error\",\"scope\":\"access\",\"message\":\"connection complete\",\"src.addr\":\"10.244.2.244:49084\","
                + "\"src.identity\":\"spiffe://cluster.local/ns/demo/sa/http-client-sa\",\"dst.hbone_addr\":\"10.244.1.103:18080\","
                + "\"dst.identity\":\"spiffe://cluster.local/ns/demo/sa/http-server-sa\",\"direction\":\"inbound\","
                + "\"error\":\"connection closed due to policy rejection\"}",
            // A peer that is not a pod we know.
            "{\"level\":\"info\",\"scope\":\"ztunnel::state\",\"message\":\"deny policy match\",\"policy\":\"demo/x\","
                + "\"proxy\":{\"wl\":\"demo/http-server-a7c45ae475-cf0f3\"},\"inbound\":{\"peer\":\"10.99.0.1:1\"}}");
    assertThat(r.records()).hasSize(3);
    assertThat(r.records())
        .extracting(FlowRecord::verdict)
        .containsExactly(Verdict.DRY_RUN_DENIED, Verdict.DENIED, Verdict.DENIED);
    assertThat(r.records())
        .extracting(FlowRecord::denyingPolicy)
        .containsExactly(
            new PolicyRef("AuthorizationPolicy", "demo", "deny-http-server-monitor"),
            new PolicyRef("AuthorizationPolicy", "demo", "deny-http-server-protect"),
            null);
    assertThat(r.records())
        .allSatisfy(
            f -> {
              assertThat(f.dstPort()).isZero();
              assertThat(f.reporter()).isEqualTo(Reporter.DESTINATION);
              assertThat(f.src().workload().orElseThrow().key())
                  .isEqualTo("demo/Deployment/http-client");
              assertThat(f.src().principal()).contains("cluster.local/ns/demo/sa/http-client-sa");
              assertThat(f.dst().workload().orElseThrow().key())
                  .isEqualTo("demo/Deployment/http-server");
            });
    assertThat(r.summary().dropped())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(DropReason.IGNORED_LOG, 2L, DropReason.UNKNOWN_POD, 1L));
  }

  @Test
  void garbageLinesAreCountedAndDeadLetteredAndTheReadGoesOn() throws Exception {
    String good = Files.readAllLines(Fixtures.file("goldmane-flows.jsonl")).get(1);
    // The next 15 s interval of the same flow: a new report, not the other end's copy.
    String nextInterval = good.replace("\"start_time\":\"", "\"start_time\":\"1");
    Read r =
        read(
            "\u0000\u0001binary garbage",
            good,
            good.substring(0, good.length() / 2),
            "[1,2,3]",
            "{\"id\":\"x\",\"flow\":{\"Key\":{\"dest_port\":\"not a number\"}}}",
            "{\"id\":\"2\",\"flow\":{\"Key\":{\"reporter\":\"Dst\"},\"start_time\":{\"nested\":true}}}",
            nextInterval);
    assertThat(r.summary().format()).isEqualTo(CaptureFormat.GOLDMANE);
    assertThat(r.summary().lines()).isEqualTo(7);
    assertThat(r.summary().badLines()).isEqualTo(5);
    assertThat(r.summary().errors()).hasSize(5).first().asString().startsWith("line 1: not JSON");
    assertThat(r.records()).hasSize(2);
    assertThat(r.deadLetters()).hasSize(5).allSatisfy(d -> assertThat(d).startsWith("ingest/"));
    assertThat(
            r.registry().get("network.enforcer.ingest.input.invalid").counters().stream()
                .mapToDouble(c -> c.count())
                .sum())
        .isEqualTo(5);
  }

  @Test
  void aFileWithNothingRecognizableReportsNoFormat() throws Exception {
    Read r = read("{\"hello\":\"world\"}", "not json at all");
    assertThat(r.summary().format()).isNull();
    assertThat(r.summary().badLines()).isEqualTo(2);
    assertThat(r.records()).isEmpty();
  }
}
