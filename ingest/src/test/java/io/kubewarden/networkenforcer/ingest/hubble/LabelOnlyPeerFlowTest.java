package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records of the destination's node in a Cilium 1.10 cluster (kind, Bookinfo): no {@code
 * workloads}, the remote source with endpoint ID 0 and only its identity labels. The source is a
 * DaemonSet pod whose revision labels Cilium's identity filter removed, so its lone name suffix
 * names no workload ({@code ambiguous-workload}); its labels still make the destination's rule.
 */
class LabelOnlyPeerFlowTest {
  private static final String LOADGEN_LABELS =
      "[\"k8s:app=loadgen\",\"k8s:app.kubernetes.io/part-of=bookinfo\","
          + "\"k8s:io.cilium.k8s.namespace.labels.kubernetes.io/metadata.name=default\","
          + "\"k8s:io.cilium.k8s.policy.cluster=kind-kind\","
          + "\"k8s:io.cilium.k8s.policy.serviceaccount=loadgen\","
          + "\"k8s:io.kubernetes.pod.namespace=default\","
          + "\"k8s:security.istio.io/tlsMode=istio\"]";

  private static String record(
      String verdict, int sourcePort, String source, String destination, String extra) {
    return "{\"flow\":{\"time\":\"2026-08-03T15:40:01.500Z\",\"verdict\":\""
        + verdict
        + "\",\"IP\":{\"source\":\"10.244.1.17\",\"destination\":\"10.244.2.9\",\"ipVersion\":\"IPv4\"},"
        + "\"l4\":{\"TCP\":{\"source_port\":"
        + sourcePort
        + ",\"destination_port\":9080,\"flags\":{\"SYN\":true}}},"
        + "\"source\":"
        + source
        + ",\"destination\":"
        + destination
        + ",\"Type\":\"L3_L4\",\"node_name\":\"kind-worker2\",\"event_type\":{\"type\":"
        + ("FORWARDED".equals(verdict) ? 4 : 5)
        + "},\"traffic_direction\":\"INGRESS\",\"trace_observation_point\":\"TO_ENDPOINT\","
        + "\"Summary\":\"TCP Flags: SYN\""
        + extra
        + "},\"node_name\":\"kind-worker2\",\"time\":\"2026-08-03T15:40:01.500Z\"}";
  }

  private static final String LOADGEN =
      "{\"identity\":40187,\"namespace\":\"default\",\"labels\":"
          + LOADGEN_LABELS
          + ",\"pod_name\":\"loadgen-x7k2p\"}";

  private static final String PRODUCTPAGE =
      "{\"ID\":1822,\"identity\":28112,\"namespace\":\"default\",\"labels\":[\"k8s:app=productpage\","
          + "\"k8s:io.cilium.k8s.namespace.labels.kubernetes.io/metadata.name=default\","
          + "\"k8s:io.cilium.k8s.policy.cluster=kind-kind\","
          + "\"k8s:io.cilium.k8s.policy.serviceaccount=bookinfo-productpage\","
          + "\"k8s:io.kubernetes.pod.namespace=default\",\"k8s:version=v1\"],"
          + "\"pod_name\":\"productpage-v1-6b746f74dc-kkzzk\"}";

  private static ParseOutcome parse(String line) throws Exception {
    HubbleFlowParser parser =
        new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());
    return parser.parse(HubbleJson.decode(line, Json.mapper().readTree(line)));
  }

  @Test
  void aSourceKnownOnlyByItsLabelsIsThePeerOfAKnownDestination() throws Exception {
    ParseOutcome outcome = parse(record("FORWARDED", 41234, LOADGEN, PRODUCTPAGE, ""));

    assertThat(outcome.dropReason()).isNull();
    FlowRecord flow = outcome.records().get(0);
    FlowEndpoint src = flow.src();
    assertThat(src.labelsOnly()).isTrue();
    assertThat(src.workload()).isEmpty();
    assertThat(src.ownerKind()).isNull();
    assertThat(src.inferred()).isFalse();
    // The Istio mark is a generated label: it selects nothing a person would write.
    assertThat(src.workloadSelector())
        .isEqualTo(
            new LabelSelectorBuilder()
                .addToMatchLabels("app", "loadgen")
                .addToMatchLabels("app.kubernetes.io/part-of", "bookinfo")
                .build());
    assertThat(src.labelPeerKey())
        .contains("default/Labels/app=loadgen,app.kubernetes.io/part-of=bookinfo");
    assertThat(src.podLabels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "app", "loadgen",
                "app.kubernetes.io/part-of", "bookinfo",
                "security.istio.io/tlsMode", "istio"));
    assertThat(src.namespace()).isEqualTo("default");
    assertThat(src.podName()).isEqualTo("loadgen-x7k2p");
    assertThat(src.ip()).isEqualTo("10.244.1.17");
    assertThat(src.serviceAccount()).isEqualTo("loadgen");

    assertThat(flow.dst().workload().orElseThrow().key())
        .isEqualTo("default/Deployment/productpage-v1");
    assertThat(flow.dst().labelsOnly()).isFalse();
    assertThat(flow.dstPort()).isEqualTo(9080);
    assertThat(flow.verdict()).isEqualTo(Verdict.FORWARDED);
    assertThat(flow.reporter()).isEqualTo(Reporter.DESTINATION);
    // No source workload: keyed by the destination, whose flows it belongs to.
    assertThat(flow.partitionKey()).isEqualTo("default/Deployment/productpage-v1");
    assertThat(Json.mapper().writeValueAsString(flow.src()))
        .contains("\"labelsOnly\":true")
        .doesNotContain("workloadKind")
        .doesNotContain("workloadName");
  }

  @Test
  void aDenyOfSuchASourceIsKeptForTheDestinationsPolicy() throws Exception {
    ParseOutcome outcome =
        parse(
            record(
                "DROPPED",
                41235,
                LOADGEN,
                PRODUCTPAGE,
                ",\"drop_reason\":133,\"drop_reason_desc\":\"POLICY_DENIED\""));

    assertThat(outcome.dropReason()).isNull();
    FlowRecord flow = outcome.records().get(0);
    assertThat(flow.verdict()).isEqualTo(Verdict.DENIED);
    assertThat(flow.src().labelPeerKey())
        .contains("default/Labels/app=loadgen,app.kubernetes.io/part-of=bookinfo");
    assertThat(flow.dst().workload().orElseThrow().key())
        .isEqualTo("default/Deployment/productpage-v1");
  }

  @Test
  void withoutAKnownWorkloadAtTheOtherEndOrWithoutSelectableLabelsItStaysDropped()
      throws Exception {
    // Both ends known only by labels: no end to learn for.
    String otherLoadgen = LOADGEN.replace("loadgen-x7k2p", "loadgen-m4n5q").replace("1822", "0");
    assertThat(parse(record("FORWARDED", 41236, LOADGEN, otherLoadgen, "")).dropReason())
        .isEqualTo(DropReason.AMBIGUOUS_WORKLOAD);
    // Only Cilium's own and generated labels: nothing to select it by.
    String bare =
        "{\"identity\":40188,\"namespace\":\"default\",\"labels\":["
            + "\"k8s:io.cilium.k8s.policy.serviceaccount=default\","
            + "\"k8s:io.kubernetes.pod.namespace=default\","
            + "\"k8s:security.istio.io/tlsMode=istio\"],\"pod_name\":\"loadgen-x7k2p\"}";
    assertThat(parse(record("FORWARDED", 41237, bare, PRODUCTPAGE, "")).dropReason())
        .isEqualTo(DropReason.AMBIGUOUS_WORKLOAD);
    // A deny of a destination known only by labels, from such a source, is a lost violation.
    assertThat(
            parse(
                    record(
                        "DROPPED",
                        41238,
                        LOADGEN,
                        otherLoadgen,
                        ",\"drop_reason\":133,\"drop_reason_desc\":\"POLICY_DENIED\""))
                .dropReason())
        .isEqualTo(DropReason.UNRESOLVED_DENY);
  }
}
