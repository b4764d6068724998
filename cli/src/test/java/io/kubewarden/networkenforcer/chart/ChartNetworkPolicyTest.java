package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The NetworkPolicies of the chart's own pods (on by default): each pod of the product is selected
 * by exactly one policy of both types, and its allowed paths are exactly the threat model's (chart
 * README). A path reads {@code in|out ports [from|to component]}.
 */
class ChartNetworkPolicyTest {
  private static final String DNS = "out 53/UDP,53/TCP";
  private static final String API = "out 443/TCP,6443/TCP";
  private static final String PROBES = "in 8081/TCP";
  private static final String MANAGEMENT = "in 8080/TCP";

  @Test
  void distributedCalicoWithTheDefaultCollector() {
    Map<String, List<String>> paths =
        paths(
            HelmChart.render(
                values(
                    "mode",
                    "distributed",
                    "controller.provider.name",
                    "calico",
                    "kafka.bootstrapServers",
                    "kafka-0:9093\\,kafka-1:9093")));
    assertThat(paths).containsOnlyKeys("ingest", "processor", "writer", "otel-collector");
    // Goldmane on 7443; Kafka on its bootstrap port.
    assertThat(paths.get("ingest"))
        .containsExactly(PROBES, MANAGEMENT, DNS, API, "out 9093/TCP", "out 7443/TCP");
    // The processor's only API request: reviewing management tokens.
    assertThat(paths.get("processor"))
        .containsExactly(PROBES, MANAGEMENT, DNS, API, "out 9093/TCP");
    assertThat(paths.get("writer"))
        .containsExactly(
            PROBES, MANAGEMENT, DNS, API, "out 9093/TCP", "out 4317/TCP to otel-collector");
    assertThat(paths.get("otel-collector"))
        .containsExactly("in 4317/TCP from writer", "in 13133/TCP", "in 9464/TCP", DNS);
  }

  @Test
  void istioOnlyFluentBitReachesTheReceiver() {
    Map<String, List<String>> paths =
        paths(
            HelmChart.render(
                values(
                    "mode",
                    "distributed",
                    "controller.provider.name",
                    "istio",
                    "kafka.bootstrapServers",
                    "kafka:9092",
                    "telemetry.collectorStrategy",
                    "none")));
    assertThat(paths).containsOnlyKeys("ingest", "processor", "writer", "fluent-bit");
    assertThat(paths.get("ingest"))
        .containsExactly(
            PROBES, MANAGEMENT, "in 4317/TCP from fluent-bit", DNS, API, "out 9092/TCP");
    assertThat(paths.get("fluent-bit"))
        .containsExactly("in 2020/TCP", DNS, "out 4317/TCP to ingest");
    assertThat(paths.get("writer")).containsExactly(PROBES, MANAGEMENT, DNS, API, "out 9092/TCP");
  }

  @Test
  void standaloneCiliumReachesHubbleRelayAndNoKafka() {
    Map<String, List<String>> paths =
        paths(
            HelmChart.render(
                values(
                    "controller.provider.name",
                    "cilium",
                    "controller.flowDumper.enabled",
                    "true",
                    "networkPolicy.managementFrom[0].namespaceSelector.matchLabels"
                        + ".kubernetes\\.io/metadata\\.name",
                    "monitoring")));
    // The embedded broker is on loopback: no Kafka path; the flow dumper is a management path.
    assertThat(paths.get("standalone"))
        .containsExactly(
            PROBES,
            "in 8080/TCP,9080/TCP from namespaceSelector",
            DNS,
            API,
            "out 443/TCP",
            "out 4317/TCP to otel-collector");
  }

  @Test
  void offWhenDisabled() {
    assertThat(HelmChart.render(values("networkPolicy.enabled", "false")).ofKind("NetworkPolicy"))
        .isEmpty();
  }

  /** Component -> its allowed paths, ingress then egress, in the policy's order. */
  private static Map<String, List<String>> paths(Manifests m) {
    Map<String, List<String>> byComponent = new TreeMap<>();
    for (JsonNode policy : m.ofKind("NetworkPolicy")) {
      String component =
          policy.at("/spec/podSelector/matchLabels/app.kubernetes.io~1component").asText();
      assertThat(policy.path("metadata").path("name").asText())
          .isEqualTo(FULLNAME + "-" + component);
      assertThat(Manifests.texts(policy.at("/spec/policyTypes")))
          .containsExactly("Ingress", "Egress");
      List<String> paths = new ArrayList<>();
      elements(policy.at("/spec/ingress"))
          .forEach(r -> paths.add("in " + ports(r) + peer(r.path("from"), " from ")));
      elements(policy.at("/spec/egress"))
          .forEach(r -> paths.add("out " + ports(r) + peer(r.path("to"), " to ")));
      assertThat(byComponent.put(component, paths)).as("one policy per component").isNull();
    }
    return byComponent;
  }

  private static String ports(JsonNode rule) {
    return elements(rule.path("ports")).stream()
        .map(p -> p.path("port").asText() + "/" + p.path("protocol").asText())
        .collect(Collectors.joining(","));
  }

  private static String peer(JsonNode peers, String prefix) {
    if (peers.isMissingNode() || peers.isEmpty()) {
      return "";
    }
    return prefix
        + elements(peers).stream()
            .map(
                p ->
                    p.has("podSelector")
                        ? p.at("/podSelector/matchLabels/app.kubernetes.io~1component").asText()
                        : String.join(",", (Iterable<String>) p::fieldNames))
            .collect(Collectors.joining(","));
  }
}
