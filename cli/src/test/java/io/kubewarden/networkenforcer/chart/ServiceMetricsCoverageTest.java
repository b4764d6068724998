package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.compose.HubbleRelayStandIn;
import io.kubewarden.networkenforcer.cli.compose.SampleCluster;
import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every metric that a dashboard panel or an alert of the chart names is one the services really
 * export. The ingest (Cilium, reading a Hubble Relay stand-in that serves the sample capture, lost
 * events included), the processor and the writer run together with the environment the chart gives
 * them, against one embedded broker and a real kube-apiserver holding the sample cluster; a
 * malformed record on the flows and proposals topics makes the processor and the writer dead-letter
 * one each. Then each /metrics is scraped and the names the chart's PromQL reads are looked up.
 */
class ServiceMetricsCoverageTest {
  /**
   * Metrics that exist only once something happens that this run does not provoke, each with why.
   * Kept small: everything else must be exported by this run.
   */
  private static final Map<String, String> ONLY_UNDER_EVENTS =
      Map.of(
          "network_enforcer_processor_violations_total",
          "tagged by action: created at the first flow a monitored or protected policy denies",
          "network_enforcer_writer_violations_written_total",
          "created when the writer first merges violations into a policy's status",
          "network_enforcer_writer_api_refusals_total",
          "tagged by operation, kind and HTTP code: created at the first write the API server refuses",
          "network_enforcer_ingest_stream_reconnects_total",
          "tagged by source: created at the first reconnect of the provider stream",
          "network_enforcer_ingest_input_invalid_total",
          "tagged by source: created at the first provider record that cannot be parsed");

  private static final String TOPIC_PREFIX = "network-enforcer.";

  @TempDir static Path dir;

  private static EmbeddedKafkaBroker broker;
  private static KubeApiServer api;
  private static HubbleRelayStandIn relay;
  private static final Map<String, CompletableFuture<CliRun>> RUNS = new LinkedHashMap<>();
  private static final Map<String, Integer> PORTS = new LinkedHashMap<>();
  private static final Map<String, Integer> PROBE_PORTS = new LinkedHashMap<>();

  /** service -> its /metrics body. */
  private static final Map<String, String> SCRAPES = new TreeMap<>();

  @BeforeAll
  static void runTheServicesAndScrapeThem() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    api = KubeApiServer.builder().start();
    ProjectCrds.install(api.client(), Duration.ofSeconds(60));
    // The writer's Lease lives in the release namespace.
    api.client()
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
    SampleCluster.create(api.client(), CliRun.sample("cluster-state.json"));
    relay = HubbleRelayStandIn.serve(CliRun.sample("hubble-flows.jsonl"), "127.0.0.1");
    Manifests chart =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.partitions",
                "2",
                "kafka.replicationFactor",
                "1",
                "controller.provider.name",
                "cilium",
                "controller.provider.cilium.tls.mode",
                "insecure",
                "telemetry.collectorStrategy",
                "none",
                // The test broker is plain text (KafkaAclTest covers the authenticated path).
                "kafka.tls.enabled",
                "false",
                "kafka.insecurePlaintext",
                "true"));

    Map<String, String> processor = chartEnv(chart, "StatefulSet", "processor");
    processor.put("NE_STATE_DIR", dir.resolve("state").toString());
    // The chart's processor lists the cluster's ranges once at start.
    processor.put("NE_KUBECONFIG", api.kubeconfig().toString());
    start("processor", processor);
    Map<String, String> ingest = chartEnv(chart, "Deployment", "ingest");
    ingest.put("NE_HUBBLE_ENDPOINT", "127.0.0.1:" + relay.port());
    ingest.put("NE_KUBECONFIG", api.kubeconfig().toString());
    start("ingest", ingest);
    Map<String, String> writer = chartEnv(chart, "Deployment", "writer");
    writer.put("NE_KUBECONFIG", api.kubeconfig().toString());
    start("writer", writer);

    HttpClient http = HttpClient.newHttpClient();
    for (String service : PORTS.keySet()) {
      await(service + " ready")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> RUNS.get(service).isDone() || ready(http, service));
      assertThat(RUNS.get(service).isDone())
          .as(() -> service + " ended: " + RUNS.get(service).join().err())
          .isFalse();
    }
    publishMalformed(TOPIC_PREFIX + "flows");
    publishMalformed(TOPIC_PREFIX + "proposals");

    // Until the sample has gone through: flows published and lost events counted by the ingest,
    // flows read, dead-lettered and kept in RocksDB by the processor (Micrometer binds Kafka
    // metrics
    // that appear later, such as a store's, once a minute), proposals written and a record
    // dead-lettered by the writer.
    Map<String, List<String>> awaited =
        Map.of(
            "ingest",
                List.of(
                    "network_enforcer_ingest_flows_published_total{",
                    "network_enforcer_ingest_hubble_lost_events_total{",
                    "network_enforcer_ingest_flows_dropped_total{"),
            "processor",
                List.of(
                    "network_enforcer_processor_dead_lettered_total{",
                    "kafka_stream_state_estimate_num_keys{"),
            "writer",
                List.of(
                    "network_enforcer_writer_api_writes_total{",
                    "network_enforcer_writer_dead_letters_total{",
                    "network_enforcer_writer_proposals_total{"));
    awaited.forEach(
        (service, names) ->
            await(service + " exports " + names)
                .atMost(Duration.ofMinutes(4))
                .pollInterval(Duration.ofSeconds(2))
                .until(
                    () -> {
                      String body = scrape(http, service);
                      return names.stream().filter(n -> !body.contains(n)).toList();
                    },
                    List::isEmpty));
    for (String service : PORTS.keySet()) {
      SCRAPES.put(service, scrape(http, service));
      // Kept for a person who reads the dashboard against what the services say.
      Files.writeString(
          Path.of("target").resolve("metrics-" + service + ".txt"), SCRAPES.get(service));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    ServiceRunner.stopAll();
    for (var run : RUNS.entrySet()) {
      CliRun result = run.getValue().get(2, TimeUnit.MINUTES);
      assertThat(result.exitCode()).as(run.getKey() + ": " + result.err()).isZero();
    }
    if (relay != null) {
      relay.close();
    }
    if (api != null) {
      api.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void everyMetricADashboardPanelNamesIsExported() {
    Map<String, Set<String>> missing = missing(MonitoringQueries.dashboardQueries());
    assertThat(missing).as("dashboard panels naming metrics no service exports").isEmpty();
  }

  @Test
  void everyMetricAnAlertNamesIsExported() {
    Map<String, List<String>> alerts = new LinkedHashMap<>();
    MonitoringQueries.alertQueries().forEach((alert, expr) -> alerts.put(alert, List.of(expr)));
    Map<String, Set<String>> missing = missing(alerts);
    assertThat(missing).as("alerts naming metrics no service exports").isEmpty();
  }

  @Test
  void eachServiceLabelsItsMetricsWithItsNameAndTheConsumerGroupsTheirLag() {
    SCRAPES.forEach(
        (service, body) -> assertThat(body).as(service).contains("service=\"" + service + "\""));
    assertThat(SCRAPES.get("processor"))
        .containsPattern(
            "kafka_consumer_fetch_manager_records_lag_max\\{[^}]*group=\"network-enforcer-processor\"");
    assertThat(SCRAPES.get("writer"))
        .containsPattern(
            "kafka_consumer_fetch_manager_records_lag_max\\{[^}]*group=\"[^\"]*-proposals\"");
    assertThat(SCRAPES.get("writer"))
        .contains("network_enforcer_writer_leader_changes_total{change=\"acquired\"")
        .containsPattern("network_enforcer_writer_proposals_(converged|learning)\\{[^}]*} [1-9]");
    assertThat(SCRAPES.get("processor"))
        .containsPattern("network_enforcer_processor_running\\{[^}]*} 1");
  }

  @Test
  void theAllowListNamesOnlyMetricsTheRunDidNotExport() {
    Set<String> exported = exported();
    assertThat(ONLY_UNDER_EVENTS.keySet())
        .as("exported after all: take them off the allow-list")
        .doesNotContainAnyElementsOf(exported);
  }

  /**
   * Query owner -> the metric names it reads that no service exported (and that are not allowed to
   * be absent).
   */
  private static Map<String, Set<String>> missing(Map<String, List<String>> queries) {
    Set<String> exported = exported();
    assertThat(exported).hasSizeGreaterThan(100);
    Map<String, Set<String>> missing = new TreeMap<>();
    queries.forEach(
        (owner, exprs) -> {
          Set<String> names = new TreeSet<>();
          exprs.forEach(e -> names.addAll(PromQlMetricNames.of(e)));
          assertThat(names).as(owner + " names no metric").isNotEmpty();
          names.removeAll(exported);
          names.removeAll(ONLY_UNDER_EVENTS.keySet());
          if (!names.isEmpty()) {
            missing.put(owner, names);
          }
        });
    return missing;
  }

  /** The sample names of every scrape (what PromQL selects: counters with _total, buckets, ...). */
  private static Set<String> exported() {
    Set<String> names = new TreeSet<>();
    SCRAPES
        .values()
        .forEach(
            body ->
                body.lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .forEach(l -> names.add(l.split("[{ ]", 2)[0])));
    return names;
  }

  private static void start(String command, Map<String, String> env) {
    int port = LoopbackPorts.free();
    env.put("NE_MANAGEMENT_PORT", String.valueOf(port));
    int probePort = LoopbackPorts.free();
    env.put("NE_PROBE_PORT", String.valueOf(probePort));
    PROBE_PORTS.put(command, probePort);
    // What is exported, not who may read it: ManagementAuthTest covers the token check the chart
    // turns on.
    env.put("NE_MANAGEMENT_AUTH", "none");
    PORTS.put(command, port);
    RUNS.put(command, CompletableFuture.supplyAsync(() -> CliRun.run(env, command)));
  }

  /**
   * The literal environment of a component's container as the chart renders it, pointed at the
   * test's broker.
   */
  private static Map<String, String> chartEnv(Manifests chart, String kind, String component) {
    Map<String, String> env = new HashMap<>();
    env(container(chart.get(kind, FULLNAME + "-" + component), component))
        .forEach(
            (name, value) -> {
              if (!value.startsWith("fieldRef:") && name.startsWith("NE_")) {
                env.put(name, value);
              }
            });
    env.put("NE_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put("NE_POD_NAME", component + "-0");
    env.put("NE_POD_NAMESPACE", NAMESPACE);
    return env;
  }

  private static void publishMalformed(String topic) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", broker.bootstrapServers()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      producer
          .send(
              new ProducerRecord<>(
                  topic,
                  "malformed".getBytes(StandardCharsets.UTF_8),
                  "{not json".getBytes(StandardCharsets.UTF_8)))
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static boolean ready(HttpClient http, String service) {
    try {
      return http.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + PROBE_PORTS.get(service) + "/readyz"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (Exception e) {
      return false;
    }
  }

  private static String scrape(HttpClient http, String service) throws Exception {
    HttpResponse<String> response = get(http, service, "/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  private static HttpResponse<String> get(HttpClient http, String service, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORTS.get(service) + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
