package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Sighting;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * Every record that proves a connection is learned as it, marked with how it was seen: the source's
 * egress record, the destination's ingress record (its node alone reported it: for the source's
 * egress allow-list the only proof), or a request of Cilium's L7 proxy. Lines as {@code hubble
 * observe -o json} prints them (Cilium 1.15, two nodes; a remote end carries no {@code ID} and no
 * {@code workloads}).
 */
class SightingTest {
  private static final String FRONTEND_LOCAL =
      "{\"ID\":1187,\"identity\":20101,\"cluster_name\":\"default\",\"namespace\":\"shop\","
          + "\"labels\":[\"k8s:app=frontend\",\"k8s:io.kubernetes.pod.namespace=shop\"],"
          + "\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\","
          + "\"workloads\":[{\"name\":\"frontend\",\"kind\":\"Deployment\"}]}";
  private static final String FRONTEND_REMOTE =
      "{\"identity\":20101,\"cluster_name\":\"default\",\"namespace\":\"shop\","
          + "\"labels\":[\"k8s:app=frontend\",\"k8s:io.kubernetes.pod.namespace=shop\"],"
          + "\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\"}";
  private static final String BACKEND_LOCAL =
      "{\"ID\":2291,\"identity\":20102,\"cluster_name\":\"default\",\"namespace\":\"shop\","
          + "\"labels\":[\"k8s:app=backend\",\"k8s:io.kubernetes.pod.namespace=shop\"],"
          + "\"pod_name\":\"backend-6c9d8f7b54-q2w4z\","
          + "\"workloads\":[{\"name\":\"backend\",\"kind\":\"Deployment\"}]}";
  private static final String BACKEND_REMOTE =
      "{\"identity\":20102,\"cluster_name\":\"default\",\"namespace\":\"shop\","
          + "\"labels\":[\"k8s:app=backend\",\"k8s:io.kubernetes.pod.namespace=shop\"],"
          + "\"pod_name\":\"backend-6c9d8f7b54-q2w4z\"}";

  /** The SYN leaving frontend's node (kind-worker): the source's egress record. */
  private static final String EGRESS =
      "{\"flow\":{\"time\":\"2026-08-03T15:40:01.101452318Z\","
          + "\"uuid\":\"6b1f0c8e-2d0a-4c43-9d1e-2f7f5a0e9b11\",\"verdict\":\"FORWARDED\","
          + "\"ethernet\":{\"source\":\"a6:1b:3c:5d:7e:01\",\"destination\":\"a6:1b:3c:5d:7e:02\"},"
          + "\"IP\":{\"source\":\"10.244.1.21\",\"destination\":\"10.244.2.31\",\"ipVersion\":\"IPv4\"},"
          + "\"l4\":{\"TCP\":{\"source_port\":45678,\"destination_port\":8080,\"flags\":{\"SYN\":true}}},"
          + "\"source\":"
          + FRONTEND_LOCAL
          + ",\"destination\":"
          + BACKEND_REMOTE
          + ",\"Type\":\"L3_L4\",\"node_name\":\"kind-worker\",\"event_type\":{\"type\":4,\"sub_type\":11},"
          + "\"traffic_direction\":\"EGRESS\",\"trace_observation_point\":\"TO_OVERLAY\","
          + "\"is_reply\":false,\"Summary\":\"TCP Flags: SYN\"},"
          + "\"node_name\":\"kind-worker\",\"time\":\"2026-08-03T15:40:01.101452318Z\"}";

  /** The same SYN arriving at backend's node (kind-worker2): the destination's ingress record. */
  private static final String INGRESS =
      "{\"flow\":{\"time\":\"2026-08-03T15:40:01.101733905Z\","
          + "\"uuid\":\"0d4e8a52-93c7-4b8e-8f0a-5c2b7e61d4a3\",\"verdict\":\"FORWARDED\","
          + "\"ethernet\":{\"source\":\"b2:4c:6e:8f:a0:11\",\"destination\":\"b2:4c:6e:8f:a0:12\"},"
          + "\"IP\":{\"source\":\"10.244.1.21\",\"destination\":\"10.244.2.31\",\"ipVersion\":\"IPv4\"},"
          + "\"l4\":{\"TCP\":{\"source_port\":45678,\"destination_port\":8080,\"flags\":{\"SYN\":true}}},"
          + "\"source\":"
          + FRONTEND_REMOTE
          + ",\"destination\":"
          + BACKEND_LOCAL
          + ",\"Type\":\"L3_L4\",\"node_name\":\"kind-worker2\",\"event_type\":{\"type\":4,\"sub_type\":4},"
          + "\"traffic_direction\":\"INGRESS\",\"trace_observation_point\":\"TO_ENDPOINT\","
          + "\"is_reply\":false,\"Summary\":\"TCP Flags: SYN\"},"
          + "\"node_name\":\"kind-worker2\",\"time\":\"2026-08-03T15:40:01.101733905Z\"}";

  /** frontend's HTTP request through the proxy on its node (an egress L7 policy). */
  private static final String L7_REQUEST =
      "{\"flow\":{\"time\":\"2026-08-03T15:40:01.104991207Z\","
          + "\"uuid\":\"c3a9e5f1-7b20-4d6e-a8c4-1e9f0b3d5a77\",\"verdict\":\"FORWARDED\","
          + "\"IP\":{\"source\":\"10.244.1.21\",\"destination\":\"10.244.2.31\",\"ipVersion\":\"IPv4\"},"
          + "\"l4\":{\"TCP\":{\"source_port\":45678,\"destination_port\":8080}},"
          + "\"source\":"
          + FRONTEND_LOCAL
          + ",\"destination\":"
          + BACKEND_REMOTE
          + ",\"Type\":\"L7\",\"node_name\":\"kind-worker\","
          + "\"l7\":{\"type\":\"REQUEST\",\"http\":{\"method\":\"GET\","
          + "\"url\":\"http://backend.shop.svc.cluster.local:8080/api/orders\",\"protocol\":\"HTTP/1.1\","
          + "\"headers\":[{\"key\":\":scheme\",\"value\":\"http\"},"
          + "{\"key\":\"X-Request-Id\",\"value\":\"4c1f2a7e-9b0d-4e3a-8f61-2d5c7b9e0a13\"}]}},"
          + "\"event_type\":{\"type\":129},\"traffic_direction\":\"EGRESS\",\"is_reply\":false,"
          + "\"Summary\":\"HTTP/1.1 GET http://backend.shop.svc.cluster.local:8080/api/orders\"},"
          + "\"node_name\":\"kind-worker\",\"time\":\"2026-08-03T15:40:01.104991207Z\"}";

  private final HubbleFlowParser parser =
      new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());

  private ParseOutcome parse(String line) throws Exception {
    return parser.parse(HubbleJson.decode(line, Json.mapper().readTree(line)));
  }

  private FlowRecord only(String line) throws Exception {
    ParseOutcome outcome = parse(line);
    assertThat(outcome.dropReason()).as("dropped").isNull();
    assertThat(outcome.records()).hasSize(1);
    return outcome.records().get(0);
  }

  @Test
  void theSourcesEgressRecordIsASourceRecord() throws Exception {
    FlowRecord r = only(EGRESS);

    assertThat(r.reporter()).isEqualTo(Reporter.SOURCE);
    assertThat(r.seenAs()).isNull();
    assertThat(r.sighting()).isEqualTo(Sighting.SOURCE_RECORD);
  }

  @Test
  void theDestinationsIngressRecordAloneIsTheSourcesConnectionToo() throws Exception {
    FlowRecord r = only(INGRESS);

    // The source is an in-cluster workload (inferred: a remote endpoint has no workloads), so the
    // processor learns it on frontend's egress as well as on backend's ingress.
    assertThat(r.src().workload().orElseThrow().key()).isEqualTo("shop/Deployment/frontend");
    assertThat(r.dst().workload().orElseThrow().key()).isEqualTo("shop/Deployment/backend");
    assertThat(r.dstPort()).isEqualTo(8080);
    assertThat(r.reporter()).isEqualTo(Reporter.DESTINATION);
    assertThat(r.sighting()).isEqualTo(Sighting.DESTINATION_RECORD);
  }

  @Test
  void aForwardedL7RequestIsAnL7Request() throws Exception {
    FlowRecord r = only(L7_REQUEST);

    assertThat(r.src().workload().orElseThrow().key()).isEqualTo("shop/Deployment/frontend");
    assertThat(r.dstPort()).isEqualTo(8080);
    assertThat(r.reporter()).isEqualTo(Reporter.SOURCE);
    assertThat(r.seenAs()).isEqualTo(Sighting.L7_REQUEST);
    assertThat(r.sighting()).isEqualTo(Sighting.L7_REQUEST);
  }

  @Test
  void aConnectionBothEndsAndTheProxyReportedCountsOnceAsItsFirstRecord() throws Exception {
    FlowRecord first = only(EGRESS);

    assertThat(parse(INGRESS).dropReason()).isEqualTo(DropReason.DUPLICATE_REPORT);
    // The HTTP request is published for its method and path, marked as on a connection already
    // published: the processor counts it only with L7 HTTP learning on, and then as its request.
    FlowRecord request = only(L7_REQUEST);
    assertThat(request.http()).isEqualTo(new HttpRequest("GET", "/api/orders", false, true));
    assertThat(request.sighting()).isEqualTo(Sighting.L7_REQUEST);
    assertThat(first.count()).isEqualTo(1);
    assertThat(first.http()).isNull();
    assertThat(first.sighting()).isEqualTo(Sighting.SOURCE_RECORD);
  }

  @Test
  void theIngressRecordCameFirstSoItIsTheOneCounted() throws Exception {
    assertThat(only(INGRESS).sighting()).isEqualTo(Sighting.DESTINATION_RECORD);

    assertThat(parse(EGRESS).dropReason()).isEqualTo(DropReason.DUPLICATE_REPORT);
  }
}
