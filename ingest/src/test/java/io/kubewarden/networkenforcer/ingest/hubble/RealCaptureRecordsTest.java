package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Hubble records as real clusters write them: no {@code workloads} for remote endpoints, no {@code
 * is_reply} on older agents, REDIRECTED and L7 records, remote nodes, lost events.
 */
class RealCaptureRecordsTest {

  private static ParseOutcome parse(String line) throws Exception {
    HubbleFlowParser parser =
        new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());
    return parser.parse(HubbleJson.decode(line, Json.mapper().readTree(line)));
  }

  /** The same line as an L7 record of the proxy: {@code l7} of this type, HTTP or DNS part. */
  private static String l7(String line, String type, String record) {
    return line.replace(
        "\"Type\":\"L3_L4\",\"event_type\":{\"type\":4}",
        "\"Type\":\"L7\",\"event_type\":{\"type\":129},\"l7\":{\"type\":\""
            + type
            + "\","
            + record
            + "}");
  }

  private static final String HTTP_GET = "\"http\":{\"method\":\"GET\",\"url\":\"http://b/\"}";

  @Test
  void aForwardedL7RequestIsItsConnectionAndNothingElseOfL7Is() throws Exception {
    // A request alone (its L3/L4 record not kept): learned as the connection, client to server,
    // even on a port pair that alone would not tell the direction.
    ParseOutcome request = parse(l7(tcp(8080, 9090, null, ""), "REQUEST", HTTP_GET));
    assertThat(request.records())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.src().workloadName()).isEqualTo("frontend");
              assertThat(r.dst().workloadName()).isEqualTo("backend");
              assertThat(r.dstPort()).isEqualTo(9090);
              assertThat(r.verdict()).isEqualTo(Verdict.FORWARDED);
            });
    // A DNS query through the proxy likewise.
    assertThat(
            parse(
                    l7(
                        tcp(45678, 53, null, "").replace("\"TCP\"", "\"UDP\""),
                        "REQUEST",
                        "\"dns\":{\"query\":\"api.example.com.\"}"))
                .records())
        .singleElement()
        .satisfies(r -> assertThat(r.dstPort()).isEqualTo(53));
    // Replies, samples and records without their kind are not.
    assertThat(
            parse(l7(tcp(8080, 45678, null, ",\"is_reply\":true"), "RESPONSE", HTTP_GET))
                .dropReason())
        .isEqualTo(DropReason.L7_RECORD);
    assertThat(parse(l7(tcp(45678, 8080, null, ""), "SAMPLE", HTTP_GET)).dropReason())
        .isEqualTo(DropReason.L7_RECORD);

    // The request and the L3/L4 record of its connection: two records, the request's with its
    // method and path (learned from it); a repeat of either counts once (HubbleL7HttpTest).
    HubbleFlowParser parser =
        new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());
    List<ParseOutcome> both = new ArrayList<>();
    for (String line :
        List.of(
            tcp(45678, 8080, "{\"SYN\":true}", ""),
            l7(tcp(45678, 8080, null, ""), "REQUEST", HTTP_GET))) {
      both.add(parser.parse(HubbleJson.decode(line, Json.mapper().readTree(line))));
    }
    assertThat(both.get(0).records()).hasSize(1);
    assertThat(both.get(1).records())
        .singleElement()
        .satisfies(r -> assertThat(r.http().path()).isEqualTo("/"));
  }

  @Test
  void aRequestTheProxyRefusedIsADenyOfItsMethodAndPathOnItsConnection() throws Exception {
    // hubble observe: "http-request DROPPED (HTTP/1.1 PUT http://b/v1/exhaust-port)" at the
    // server's proxy (ingress), no drop reason; the L3/L4 record of the connection was REDIRECTED.
    String put = "\"http\":{\"method\":\"PUT\",\"url\":\"http://b/v1/exhaust-port\"}";
    String refused =
        l7(tcp(45678, 8080, null, ",\"traffic_direction\":\"INGRESS\""), "REQUEST", put)
            .replace("\"verdict\":\"FORWARDED\"", "\"verdict\":\"DROPPED\"");
    HubbleFlowParser parser =
        new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());
    List<ParseOutcome> outcomes = new ArrayList<>();
    for (String line :
        List.of(
            tcp(45678, 8080, "{\"SYN\":true}", "")
                .replace("\"verdict\":\"FORWARDED\"", "\"verdict\":\"REDIRECTED\""),
            refused,
            // Another refused request on the same connection (keep-alive): news only where
            // requests are learned, so marked as on a connection published already.
            refused.replace("exhaust-port", "other-port"),
            // The first request again on it: nothing new.
            refused)) {
      outcomes.add(parser.parse(HubbleJson.decode(line, Json.mapper().readTree(line))));
    }
    assertThat(outcomes.get(0).records())
        .singleElement()
        .satisfies(r -> assertThat(r.verdict()).isEqualTo(Verdict.FORWARDED));
    assertThat(outcomes.get(1).records())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.verdict()).isEqualTo(Verdict.DENIED);
              assertThat(r.src().workloadName()).isEqualTo("frontend");
              assertThat(r.dst().workloadName()).isEqualTo("backend");
              assertThat(r.dstPort()).isEqualTo(8080);
              // The server's proxy refused it: the server's ingress policy, a protect violation.
              assertThat(r.reporter()).isEqualTo(Reporter.DESTINATION);
              assertThat(r.http())
                  .as("the refused request, named in its violation")
                  .isEqualTo(new HttpRequest("PUT", "/v1/exhaust-port", false));
              assertThat(r.seenAs()).as("not a request the proxy let through").isNull();
            });
    assertThat(outcomes.get(2).records())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.verdict()).isEqualTo(Verdict.DENIED);
              assertThat(r.http())
                  .isEqualTo(new HttpRequest("PUT", "/v1/other-port", false).onSeenConnection());
            });
    assertThat(outcomes.get(3).dropReason()).isEqualTo(DropReason.DUPLICATE_REPORT);
  }

  private static String tcp(int srcPort, int dstPort, String flagsJson, String extra) {
    return "{\"flow\":{\"time\":\"2026-08-03T15:40:01Z\",\"verdict\":\"FORWARDED\",\"IP\":{\"source\":\"10.244.1.21\","
        + "\"destination\":\"10.244.2.31\"},\"l4\":{\"TCP\":{\"source_port\":"
        + srcPort
        + ",\"destination_port\":"
        + dstPort
        + (flagsJson == null ? "" : ",\"flags\":" + flagsJson)
        + "}},"
        + "\"source\":{\"identity\":20101,\"namespace\":\"shop\",\"labels\":[\"k8s:app=frontend\"],"
        + "\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\"},"
        + "\"destination\":{\"identity\":20102,\"namespace\":\"shop\",\"labels\":[\"k8s:app=backend\"],"
        + "\"pod_name\":\"backend-6c9d8f7b54-q2w4z\"},\"Type\":\"L3_L4\",\"event_type\":{\"type\":4}"
        + extra
        + "}}";
  }

  @Test
  void aMultiNodeCaptureWithoutWorkloadsOrIsReplyLearnsOnlyRequests() {
    List<FlowRecord> records = new ArrayList<>();
    // An empty cluster view: the live ingest after every pod of the capture was deleted.
    CaptureSummary summary =
        CaptureFile.read(
            Fixtures.capture("hubble-multinode.jsonl"),
            Optional.empty(),
            new ClusterIndex(),
            records::add);

    assertThat(summary.lines()).isEqualTo(16);
    assertThat(summary.badLines()).isZero();
    // debug-x7k2p (a lone suffix, nothing says DaemonSet: no workload) is known by its labels,
    // the peer of backend (allowed) and of db (denied); the L7 request of a connection seen is
    // published too: it carries its method and path.
    assertThat(summary.published()).isEqualTo(7);
    assertThat(summary.dropped())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                DropReason.NOT_A_FLOW, 2L, // node status, lost events
                DropReason.DUPLICATE_REPORT, 2L, // the other node's copy, a later packet
                DropReason.REPLY,
                    4L, // SYN+ACK twice, an ACK towards an ephemeral port, trace reason REPLY
                DropReason.REMOTE_NODE, 1L));
    assertThat(summary.lostEvents()).isEqualTo(42);
    assertThat(summary.inferredFlows()).isEqualTo(7);

    // No reply was learned: every port is a service port, never the client's ephemeral one.
    assertThat(records)
        .extracting(
            r ->
                r.src().labelPeerKey().orElse(r.src().workloadName())
                    + ">"
                    + r.dst().workloadName()
                    + ":"
                    + r.dstPort()
                    + " "
                    + r.verdict())
        .containsExactly(
            "frontend>backend:8080 FORWARDED",
            "backend>db:5432 FORWARDED",
            "worker>backend:8080 FORWARDED",
            "frontend>backend:9090 FORWARDED",
            "frontend>backend:9090 FORWARDED",
            "shop/Labels/run=debug>backend:8080 FORWARDED",
            "shop/Labels/run=debug>db:5432 DENIED");
    assertThat(records.get(4).http()).isEqualTo(new HttpRequest("GET", "/orders", false, true));
    assertThat(records.get(3).http()).isNull();
    FlowRecord fromWorker = records.get(2);
    assertThat(fromWorker.src().inferred()).isTrue();
    assertThat(fromWorker.src().workloadSelector())
        .isEqualTo(
            new LabelSelectorBuilder()
                .addToMatchLabels("app", "worker")
                .addToMatchLabels("queue", "orders")
                .build());
    assertThat(fromWorker.src().serviceAccount()).isEqualTo("worker");
    // Hubble named db-0's StatefulSet (local endpoint); only its selector had to come from the
    // labels.
    assertThat(records.get(1).dst().workload().orElseThrow().key())
        .isEqualTo("shop/StatefulSet/db");
  }

  @Test
  void theHubbleExporterRecordsOfCiliumsDocumentation() {
    List<FlowRecord> records = new ArrayList<>();
    CaptureSummary summary =
        CaptureFile.read(
            Fixtures.capture("hubble-export-cilium-docs.jsonl"),
            Optional.empty(),
            new ClusterIndex(),
            records::add);

    assertThat(records).isEmpty();
    // An ICMPv6 drop for an invalid source, and xwing (a pod without controller) denied by policy.
    assertThat(summary.dropped())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(DropReason.NON_POLICY_DROP, 1L, DropReason.NOT_A_WORKLOAD, 1L));
  }

  @Test
  void directionWithoutIsReply() throws Exception {
    assertThat(parse(tcp(45678, 8080, "{\"SYN\":true}", "")).records()).hasSize(1);
    assertThat(parse(tcp(8080, 45678, "{\"SYN\":true,\"ACK\":true}", "")).dropReason())
        .isEqualTo(DropReason.REPLY);
    // Older agents: only the Summary text carries the flags.
    assertThat(parse(tcp(8080, 45678, null, ",\"Summary\":\"TCP Flags: SYN, ACK\"")).dropReason())
        .isEqualTo(DropReason.REPLY);
    assertThat(parse(tcp(8080, 45678, "{\"ACK\":true}", "")).dropReason())
        .isEqualTo(DropReason.REPLY);
    assertThat(
            parse(tcp(45678, 8080, "{\"ACK\":true}", ",\"trace_reason\":\"ESTABLISHED\""))
                .records())
        .hasSize(1);
    // Two service ports and nothing else to go by: not learned.
    assertThat(parse(tcp(8080, 9090, "{\"ACK\":true}", "")).dropReason())
        .isEqualTo(DropReason.UNKNOWN_DIRECTION);
    // is_reply, when present, is trusted over the ports.
    assertThat(
            parse(tcp(8080, 45678, "{\"ACK\":true}", ",\"is_reply\":false"))
                .records()
                .get(0)
                .dstPort())
        .isEqualTo(45678);
    assertThat(parse(tcp(45678, 8080, "{\"SYN\":true}", ",\"is_reply\":true")).dropReason())
        .isEqualTo(DropReason.REPLY);
  }

  @Test
  void verdictsAndRecordTypesGetHonestReasons() throws Exception {
    assertThat(
            parse(
                    tcp(45678, 8080, null, ",\"verdict\":\"REDIRECTED\"")
                        .replace("\"verdict\":\"FORWARDED\",", ""))
                .records())
        .extracting(FlowRecord::verdict)
        .containsExactly(Verdict.FORWARDED);
    assertThat(
            parse(
                    tcp(45678, 8080, null, "")
                        .replace(
                            "\"Type\":\"L3_L4\",\"event_type\":{\"type\":4}",
                            "\"Type\":\"L7\",\"event_type\":{\"type\":129}"))
                .dropReason())
        .isEqualTo(DropReason.L7_RECORD);
    assertThat(
            parse(tcp(45678, 8080, null, ",\"Type\":\"SOCK\"").replace("\"Type\":\"L3_L4\",", ""))
                .dropReason())
        .isEqualTo(DropReason.SOCKET_TRACE);
    // A policy-verdict event's drop is a policy deny even without a drop reason.
    String policyVerdictDrop =
        tcp(45678, 8080, null, "")
            .replace("\"verdict\":\"FORWARDED\"", "\"verdict\":\"DROPPED\"")
            .replace("\"event_type\":{\"type\":4}", "\"event_type\":{\"type\":5}");
    assertThat(parse(policyVerdictDrop).records())
        .extracting(FlowRecord::verdict)
        .containsExactly(Verdict.DENIED);
    // The same deny from a pod no workload can be inferred for: its labels name the peer of the
    // known destination.
    String byLabels = policyVerdictDrop.replace("frontend-5d8f7b9c6d-x7k2p", "frontend-x7k2p");
    assertThat(parse(byLabels).records())
        .extracting(r -> r.src().labelPeerKey().orElseThrow())
        .containsExactly("shop/Labels/app=frontend");
    // Neither end placeable: a lost violation, not an unknown pod.
    String unplaceable = byLabels.replace("backend-6c9d8f7b54-q2w4z", "backend-q2w4z");
    assertThat(parse(unplaceable).dropReason()).isEqualTo(DropReason.UNRESOLVED_DENY);
    assertThat(
            parse(
                    tcp(45678, 8080, "{\"SYN\":true}", "")
                        .replace(
                            "\"identity\":20101,\"namespace\":\"shop\",\"labels\":[\"k8s:app=frontend\"],\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\"",
                            "\"identity\":6,\"labels\":[\"reserved:remote-node\"]"))
                .dropReason())
        .isEqualTo(DropReason.REMOTE_NODE);
    assertThat(
            parse(
                    tcp(45678, 8080, "{\"SYN\":true}", "")
                        .replace(
                            "\"identity\":20101,\"namespace\":\"shop\",\"labels\":[\"k8s:app=frontend\"],\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\"",
                            "\"identity\":1,\"labels\":[\"reserved:host\"]"))
                .dropReason())
        .isEqualTo(DropReason.HOST);
  }
}
