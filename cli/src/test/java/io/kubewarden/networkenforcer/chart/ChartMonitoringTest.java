package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The chart's monitoring objects (metrics.*): off by default, and when on, a ServiceMonitor that
 * reaches every network-enforcer pod's metrics port exactly once, the dashboard ConfigMap for
 * Grafana's sidecar, and the alerts the chart promises.
 */
class ChartMonitoringTest {
  private static final Map<String, String> ALL_ON =
      values(
          "metrics.serviceMonitor.enabled",
          "true",
          "metrics.prometheusRule.enabled",
          "true",
          "metrics.grafanaDashboard.enabled",
          "true");

  @Test
  void nothingIsRenderedByDefault() {
    for (String mode : List.of("standalone", "distributed")) {
      Manifests chart =
          HelmChart.render(
              mode.equals("standalone")
                  ? values()
                  : values("mode", "distributed", "kafka.bootstrapServers", "kafka:9092"));
      assertThat(chart.ofKind("ServiceMonitor")).isEmpty();
      assertThat(chart.ofKind("PrometheusRule")).isEmpty();
      assertThat(chart.ofKind("ConfigMap"))
          .noneMatch(c -> c.path("metadata").path("labels").has("grafana_dashboard"));
      assertThat(chart.ofKind("Service"))
          .noneMatch(s -> s.path("metadata").path("name").asText().endsWith("-metrics"));
    }
  }

  @Test
  void everythingOnPassesStrictLint() {
    for (String mode : List.of("standalone", "distributed")) {
      Map<String, String> set = new LinkedHashMap<>(ALL_ON);
      set.put("mode", mode);
      set.put("kafka.bootstrapServers", "kafka:9092");
      HelmChart.Result lint = HelmChart.lint(true, set);
      assertThat(lint.exitCode()).as(lint.stdout() + lint.stderr()).isZero();
    }
  }

  @Test
  void theServiceMonitorReachesEveryPodOfTheReleaseOnceAtItsNamedPort() {
    Map<String, List<String>> componentsByMode =
        Map.of(
            "standalone",
            List.of("standalone"),
            "distributed",
            List.of("ingest", "processor", "writer"));
    componentsByMode.forEach(
        (mode, components) -> {
          Map<String, String> set = new LinkedHashMap<>(ALL_ON);
          set.put("mode", mode);
          set.put("kafka.bootstrapServers", "kafka:9092");
          Manifests chart = HelmChart.render(set);
          JsonNode monitor = chart.get("ServiceMonitor", FULLNAME);
          JsonNode selector = monitor.path("spec").path("selector").path("matchLabels");
          assertThat(
                  monitor.path("spec").path("namespaceSelector").path("matchNames").get(0).asText())
              .isEqualTo(NAMESPACE);
          JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
          assertThat(endpoint.path("port").asText()).isEqualTo("management");
          assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
          assertThat(endpoint.path("honorLabels").asBoolean()).isTrue();

          List<JsonNode> selected =
              chart.ofKind("Service").stream()
                  .filter(s -> matches(selector, s.path("metadata").path("labels")))
                  .toList();
          assertThat(selected)
              .extracting(s -> s.path("metadata").path("name").asText())
              .containsExactlyInAnyOrderElementsOf(
                  components.stream().map(c -> FULLNAME + "-" + c + "-metrics").toList());
          Set<String> podsReached = new HashSet<>();
          for (JsonNode service : selected) {
            JsonNode port = service.path("spec").path("ports").get(0);
            assertThat(port.path("name").asText()).isEqualTo("management");
            assertThat(port.path("targetPort").asText()).isEqualTo("management");
            for (JsonNode workload : chart.workloads()) {
              JsonNode podLabels =
                  workload.path("spec").path("template").path("metadata").path("labels");
              if (matches(service.path("spec").path("selector"), podLabels)) {
                assertThat(podsReached.add(workload.path("metadata").path("name").asText()))
                    .isTrue();
                assertThat(
                        Manifests.elements(
                            Manifests.podSpec(workload).path("containers").get(0).path("ports")))
                    .anyMatch(p -> p.path("name").asText().equals("management"));
              }
            }
          }
          assertThat(podsReached)
              .containsExactlyInAnyOrderElementsOf(
                  components.stream().map(c -> FULLNAME + "-" + c).toList());
        });
  }

  @Test
  void aSecuredMetricsPortIsNamedAndGetsItsTlsAndToken() {
    Map<String, String> set = new LinkedHashMap<>(ALL_ON);
    set.putAll(
        values(
            "metrics.serviceMonitor.port",
            "metrics",
            "metrics.serviceMonitor.scheme",
            "https",
            "metrics.serviceMonitor.tlsConfig.serverName",
            "ne-metrics",
            "metrics.serviceMonitor.tlsConfig.ca.secret.name",
            "ne-ca",
            "metrics.serviceMonitor.tlsConfig.ca.secret.key",
            "ca.crt",
            "metrics.serviceMonitor.authorization.type",
            "Bearer",
            "metrics.serviceMonitor.authorization.credentials.name",
            "ne-scrape",
            "metrics.serviceMonitor.authorization.credentials.key",
            "token",
            "metrics.serviceMonitor.labels.release",
            "kube-prometheus-stack"));
    Manifests chart = HelmChart.render(set);
    JsonNode monitor = chart.get("ServiceMonitor", FULLNAME);
    assertThat(monitor.path("metadata").path("labels").path("release").asText())
        .isEqualTo("kube-prometheus-stack");
    JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
    assertThat(endpoint.path("port").asText()).isEqualTo("metrics");
    assertThat(endpoint.path("scheme").asText()).isEqualTo("https");
    assertThat(endpoint.path("tlsConfig").path("serverName").asText()).isEqualTo("ne-metrics");
    assertThat(endpoint.path("tlsConfig").path("ca").path("secret").path("name").asText())
        .isEqualTo("ne-ca");
    assertThat(endpoint.path("authorization").path("credentials").path("key").asText())
        .isEqualTo("token");
    JsonNode service = chart.get("Service", FULLNAME + "-standalone-metrics");
    assertThat(service.path("spec").path("ports").get(0).path("targetPort").asText())
        .isEqualTo("metrics");
  }

  @Test
  void theDashboardConfigMapCarriesEveryDashboardForTheSidecar() throws Exception {
    Map<String, String> set = new LinkedHashMap<>(ALL_ON);
    set.put("metrics.grafanaDashboard.folder", "Network Enforcer");
    JsonNode configMap = HelmChart.render(set).get("ConfigMap", FULLNAME + "-dashboards");
    assertThat(configMap.path("metadata").path("namespace").asText()).isEqualTo(NAMESPACE);
    assertThat(configMap.path("metadata").path("labels").path("grafana_dashboard").asText())
        .isEqualTo("1");
    assertThat(configMap.path("metadata").path("annotations").path("grafana_folder").asText())
        .isEqualTo("Network Enforcer");
    Map<String, String> data = new TreeMap<>();
    configMap.path("data").properties().forEach(e -> data.put(e.getKey(), e.getValue().asText()));
    Map<String, String> files = new TreeMap<>();
    for (var file : MonitoringQueries.dashboardFiles()) {
      files.put(file.getFileName().toString(), Files.readString(file).stripTrailing());
    }
    assertThat(files).containsKey("network-enforcer.json");
    assertThat(data).isEqualTo(files);

    Map<String, String> elsewhere = new LinkedHashMap<>(ALL_ON);
    elsewhere.put("metrics.grafanaDashboard.namespace", "monitoring");
    assertThat(
            HelmChart.render(elsewhere)
                .get("ConfigMap", FULLNAME + "-dashboards")
                .path("metadata")
                .path("namespace")
                .asText())
        .isEqualTo("monitoring");
  }

  @Test
  void theDashboardHasAPanelForEachSubjectWithUniqueIdsAndQueries() {
    JsonNode dashboard = MonitoringQueries.dashboard(MonitoringQueries.dashboardFiles().get(0));
    assertThat(dashboard.path("uid").asText()).isEqualTo("network-enforcer");
    List<JsonNode> panels = MonitoringQueries.panels(dashboard);
    assertThat(panels.stream().map(p -> p.path("id").asInt()).distinct().count())
        .isEqualTo(panels.size());
    List<String> titles = panels.stream().map(p -> p.path("title").asText()).toList();
    assertThat(titles)
        .contains(
            "Flow rate per provider",
            "Drops by reason",
            "Lost events",
            "Consumer lag per group",
            "Processor throughput",
            "State-store size",
            "Proposals",
            "Convergence",
            "Violations",
            "API calls",
            "API refusals",
            "Leader and leader changes");
    for (JsonNode panel : panels) {
      if (!"row".equals(panel.path("type").asText())) {
        assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
        panel
            .path("targets")
            .forEach(
                t ->
                    assertThat(t.path("expr").asText())
                        .as(panel.path("title").asText())
                        .contains("namespace=\"$namespace\""));
      }
    }
  }

  @Test
  void theRuleHasTheAlertsTheChartPromisesScopedToTheReleaseNamespace() {
    JsonNode rule = MonitoringQueries.prometheusRule();
    assertThat(rule.path("metadata").path("namespace").asText()).isEqualTo(NAMESPACE);
    assertThat(MonitoringQueries.alertQueries())
        .containsOnlyKeys(
            "NetworkEnforcerConsumerLagGrowing",
            "NetworkEnforcerDeadLetters",
            "NetworkEnforcerProviderStreamDown",
            "NetworkEnforcerEventsLost",
            "NetworkEnforcerNoLeader",
            "NetworkEnforcerApiRefusals",
            "NetworkEnforcerProcessorNotRunning");
    MonitoringQueries.alertQueries()
        .forEach(
            (alert, expr) ->
                assertThat(expr).as(alert).contains("namespace=\"" + NAMESPACE + "\""));
    for (JsonNode r : rule.path("spec").path("groups").get(0).path("rules")) {
      assertThat(r.path("labels").path("severity").asText()).isIn("warning", "critical");
      assertThat(r.path("annotations").path("summary").asText()).isNotBlank();
      assertThat(r.path("annotations").path("description").asText()).isNotBlank();
    }
    JsonNode labelled =
        HelmChart.render(
                values(
                    "metrics.prometheusRule.enabled",
                    "true",
                    "metrics.prometheusRule.additionalAlertLabels.team",
                    "platform",
                    "metrics.prometheusRule.consumerLagThreshold",
                    "500"))
            .ofKind("PrometheusRule")
            .get(0);
    for (JsonNode r : labelled.path("spec").path("groups").get(0).path("rules")) {
      assertThat(r.path("labels").path("team").asText())
          .as(r.path("alert").asText())
          .isEqualTo("platform");
    }
    assertThat(
            labelled.path("spec").path("groups").get(0).path("rules").get(0).path("expr").asText())
        .contains("> 500");
  }

  @Test
  void theSchemaRefusesWhatPrometheusWouldNot() {
    for (Map<String, String> bad :
        List.of(
            values("metrics.serviceMonitor.scheme", "ftp"),
            values("metrics.serviceMonitor.interval", "30 seconds"),
            values("metrics.serviceMonitor.path", "metrics"),
            values("metrics.prometheusRule.consumerLagThreshold", "0"),
            values("metrics.serviceMonitor.enable", "true"))) {
      HelmChart.Result result = HelmChart.template(bad);
      assertThat(result.ok()).as(bad.toString()).isFalse();
      assertThat(result.stderr()).as(bad.toString()).contains("metrics");
    }
  }

  @Test
  void metricNamesAreFoundInPromQl() {
    assertThat(
            PromQlMetricNames.of(
                "sum by (namespace, group) (rate(a_total{namespace=\"x\",code!~\"4|b\"}[5m]))"
                    + " > 1e3 and on (group) max(b_gauge offset 5m) or absent(c{x=\"y\"}) unless d_total[$__rate_interval]"))
        .containsExactly("a_total", "b_gauge", "c", "d_total");
  }

  private static boolean matches(JsonNode selector, JsonNode labels) {
    if (selector.isMissingNode() || selector.isEmpty()) {
      return false;
    }
    for (var entry : selector.properties()) {
      if (!entry.getValue().asText().equals(labels.path(entry.getKey()).asText(null))) {
        return false;
      }
    }
    return true;
  }
}
