package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** A forwarded HTTP request keeps its method and URL path on the flow record. */
class HubbleL7HttpTest {
  /**
   * An L7 request as {@code hubble observe -o json} prints it for a pod behind an HTTP rule (Cilium
   * 1.16, ingress at the server's proxy); the headers, protocol and the query are not kept.
   */
  private static final String REQUEST =
      "{\"flow\":{\"time\":\"2026-08-03T15:41:07.201938114Z\","
          + "\"uuid\":\"5f0c3f7e-3a9e-4a43-9d0a-0b8b5d8b1e21\",\"verdict\":\"FORWARDED\","
          + "\"IP\":{\"source\":\"10.244.1.21\",\"destination\":\"10.244.2.31\",\"ipVersion\":\"IPv4\"},"
          + "\"l4\":{\"TCP\":{\"source_port\":51834,\"destination_port\":9090}},"
          + "\"source\":{\"ID\":1711,\"identity\":20101,\"cluster_name\":\"kind-kind\",\"namespace\":\"shop\","
          + "\"labels\":[\"k8s:app=frontend\",\"k8s:io.kubernetes.pod.namespace=shop\"],"
          + "\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\","
          + "\"workloads\":[{\"name\":\"frontend\",\"kind\":\"Deployment\"}]},"
          + "\"destination\":{\"ID\":2301,\"identity\":20102,\"cluster_name\":\"kind-kind\",\"namespace\":\"shop\","
          + "\"labels\":[\"k8s:app=backend\",\"k8s:io.kubernetes.pod.namespace=shop\"],"
          + "\"pod_name\":\"backend-6c9d8f7b54-q2w4z\","
          + "\"workloads\":[{\"name\":\"backend\",\"kind\":\"Deployment\"}]},"
          + "\"Type\":\"L7\",\"node_name\":\"kind-kind/kind-worker2\","
          + "\"l7\":{\"type\":\"REQUEST\",\"http\":{\"method\":\"GET\","
          + "\"url\":\"http://backend.shop:9090/api/orders/42?expand=items\",\"protocol\":\"HTTP/1.1\","
          + "\"headers\":[{\"key\":\":scheme\",\"value\":\"http\"},"
          + "{\"key\":\"User-Agent\",\"value\":\"curl/8.5.0\"},"
          + "{\"key\":\"X-Request-Id\",\"value\":\"3f2b1c7a-8d6e-4f5a-9b0c-1d2e3f4a5b6c\"}]}},"
          + "\"event_type\":{\"type\":129},\"traffic_direction\":\"INGRESS\",\"is_reply\":false,"
          + "\"Summary\":\"HTTP/1.1 GET http://backend.shop:9090/api/orders/42?expand=items\"},"
          + "\"node_name\":\"kind-kind/kind-worker2\",\"time\":\"2026-08-03T15:41:07.201938114Z\"}";

  private final HubbleFlowParser parser =
      new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());

  private ParseOutcome parse(String line) throws Exception {
    return parser.parse(HubbleJson.decode(line, Json.mapper().readTree(line)));
  }

  @Test
  void aForwardedRequestCarriesItsMethodAndPath() throws Exception {
    FlowRecord r = parse(REQUEST).records().get(0);
    assertThat(r.http()).isEqualTo(new HttpRequest("GET", "/api/orders/42", false));
    assertThat(r.src().workloadName()).isEqualTo("frontend");
    assertThat(r.dst().workloadName()).isEqualTo("backend");
    assertThat(r.dstPort()).isEqualTo(9090);
    assertThat(r.reporter()).isEqualTo(Reporter.DESTINATION);
  }

  @Test
  void eachDistinctRequestOnAConnectionIsNewsAndARepeatIsNot() throws Exception {
    String syn =
        REQUEST
            .replace("\"Type\":\"L7\"", "\"Type\":\"L3_L4\"")
            .replace("\"type\":129", "\"type\":4")
            .replace(
                "\"destination_port\":9090}", "\"destination_port\":9090,\"flags\":{\"SYN\":true}}")
            .replaceAll("\"l7\":\\{.*\\}\\},\"event_type\"", "\"event_type\"");
    ParseOutcome connection = parse(syn);
    assertThat(connection.records()).singleElement().satisfies(r -> assertThat(r.http()).isNull());
    // Its connection was published: the request says so.
    assertThat(parse(REQUEST).records())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.http())
                    .isEqualTo(new HttpRequest("GET", "/api/orders/42", false, true)));
    // The same request again (another query string: the same path) on the same connection.
    assertThat(parse(REQUEST.replace("expand=items", "expand=none")).dropReason())
        .isEqualTo(DropReason.DUPLICATE_REPORT);
    assertThat(parse(REQUEST.replace("\"method\":\"GET\"", "\"method\":\"DELETE\"")).records())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.http())
                    .isEqualTo(new HttpRequest("DELETE", "/api/orders/42", false, true)));
  }

  @Test
  void aRequestBeforeItsL3L4RecordIsItsConnection() throws Exception {
    String first = REQUEST.replace("51834", "51900");
    assertThat(parse(first).records())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.http())
                    .isEqualTo(new HttpRequest("GET", "/api/orders/42", false, false)));
    String l3l4 =
        first
            .replace("\"Type\":\"L7\"", "\"Type\":\"L3_L4\"")
            .replace("\"type\":129", "\"type\":4")
            .replaceAll("\"l7\":\\{.*\\}\\},\"event_type\"", "\"event_type\"");
    assertThat(parse(l3l4).dropReason()).isEqualTo(DropReason.DUPLICATE_REPORT);
    assertThat(parse(first.replace("/api/orders/42", "/api/orders/43")).records())
        .singleElement()
        .satisfies(r -> assertThat(r.http().connectionSeen()).isTrue());
  }

  @Test
  void aLongPathIsCutAndMarkedAndOtherL7RecordsCarryNone() throws Exception {
    String longPath = "/files/" + "a".repeat(400);
    FlowRecord r = parse(REQUEST.replace("/api/orders/42?expand=items", longPath)).records().get(0);
    assertThat(r.http()).isEqualTo(new HttpRequest("GET", longPath.substring(0, 256), true));
    // A DNS request through the proxy is its connection, without an HTTP request.
    String dns =
        REQUEST
            .replaceAll("\"http\":\\{.*\\]\\}\\}", "\"dns\":{\"query\":\"api.example.com.\"}}")
            .replace("51834", "40000");
    assertThat(parse(dns).records()).singleElement().satisfies(d -> assertThat(d.http()).isNull());
    // The response is no record at all.
    assertThat(
            parse(
                    REQUEST
                        .replace("\"type\":\"REQUEST\"", "\"type\":\"RESPONSE\"")
                        .replace("\"is_reply\":false", "\"is_reply\":true"))
                .dropReason())
        .isEqualTo(DropReason.L7_RECORD);
  }
}
