package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Strimzi topic mode end to end: a broker that holds exactly the topics the chart's KafkaTopics
 * declare (topic auto-creation off, as on Strimzi), and the processor, ingest and writer started
 * with the environment the chart gives their containers. Each comes up ready; the only topics that
 * appear besides the declared ones are Kafka Streams' own internal topics, which it creates itself.
 */
class StrimziTopicsStartTest {
  private static final String PREFIX = "st.";
  private static final String APPLICATION_ID = "st-processor";

  private static EmbeddedKafkaBroker broker;
  private static KubeApiServer api;
  private static Manifests chart;
  private static Set<String> declared;

  @TempDir static Path dir;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    api = KubeApiServer.builder().start();
    ProjectCrds.install(api.client(), Duration.ofSeconds(60));
    api.client()
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
    chart =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "my-cluster-kafka-bootstrap:9092",
                "kafka.strimzi.createTopics",
                "true",
                "kafka.strimzi.clusterName",
                "my-cluster",
                "kafka.topicPrefix",
                PREFIX,
                "kafka.partitions",
                "2",
                "kafka.replicationFactor",
                "1",
                "processor.applicationId",
                APPLICATION_ID,
                "controller.provider.name",
                "istio",
                "controller.provider.istio.tls.mode",
                "insecure",
                "telemetry.collectorStrategy",
                "none",
                // The test broker is plain text (KafkaAclTest covers the authenticated path).
                "kafka.tls.enabled",
                "false",
                "kafka.insecurePlaintext",
                "true"));
    // What the Topic Operator would create from the KafkaTopics, and nothing else.
    List<NewTopic> topics = new ArrayList<>();
    declared = new TreeSet<>();
    for (JsonNode kafkaTopic : chart.ofKind("KafkaTopic")) {
      JsonNode spec = kafkaTopic.path("spec");
      Map<String, String> config = new HashMap<>();
      spec.path("config").properties().forEach(e -> config.put(e.getKey(), e.getValue().asText()));
      topics.add(
          new NewTopic(
                  spec.path("topicName").asText(),
                  spec.path("partitions").asInt(),
                  (short) spec.path("replicas").asInt())
              .configs(config));
      declared.add(spec.path("topicName").asText());
    }
    try (Admin admin = admin()) {
      admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void theChartDeclaresTheProcessorsLoopTopic() {
    assertThat(declared)
        .containsExactlyInAnyOrder(
            PREFIX + "flows",
            PREFIX + "policies",
            PREFIX + "control",
            PREFIX + "proposals",
            PREFIX + "violations",
            PREFIX + "dead-letter",
            PREFIX + "native-policies",
            PREFIX + "data-plane-loss",
            APPLICATION_ID + "-deny-reattribution");
  }

  @Test
  void eachServiceStartsAgainstExactlyTheDeclaredTopics() throws Exception {
    Map<String, String> processor = chartEnv("StatefulSet", "processor");
    processor.put("NE_STATE_DIR", dir.resolve("state").toString());
    // The chart's processor lists the cluster's ranges once at start.
    processor.put("NE_KUBECONFIG", api.kubeconfig().toString());
    assertThat(processor)
        .containsEntry("NE_KAFKA_CREATE_TOPICS", "false")
        .containsEntry("NE_GROUP_INSTANCE_ID", "processor-0");
    runUntilReady(
        processor,
        "processor",
        "kafka-streams ok",
        () -> {
          // Static membership really set: the pod's name reached the Streams consumer as
          // group.instance.id.
          try (Admin admin = admin()) {
            await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(
                    () ->
                        assertThat(
                                admin
                                    .describeConsumerGroups(List.of(APPLICATION_ID))
                                    .all()
                                    .get()
                                    .get(APPLICATION_ID)
                                    .members())
                            .extracting(m -> m.groupInstanceId().orElse("dynamic"))
                            .containsExactly("processor-0-1"));
          }
        });

    Map<String, String> ingest = chartEnv("Deployment", "ingest");
    ingest.put("NE_OTLP_PORT", String.valueOf(LoopbackPorts.free()));
    ingest.put("NE_OTLP_HTTP_PORT", "0");
    ingest.put("NE_KUBECONFIG", api.kubeconfig().toString());
    runUntilReady(ingest, "ingest", "ingest ok");

    Map<String, String> writer = chartEnv("Deployment", "writer");
    writer.put("NE_KUBECONFIG", api.kubeconfig().toString());
    runUntilReady(writer, "writer", "writer ok");

    // Nothing was auto-created; what is not declared is Kafka Streams' own internal topics.
    Set<String> undeclared = new TreeSet<>(topicsOnTheBroker());
    assertThat(undeclared).containsAll(declared);
    undeclared.removeAll(declared);
    undeclared.removeIf(name -> name.startsWith("__"));
    assertThat(undeclared)
        .isNotEmpty()
        .allSatisfy(
            name ->
                assertThat(name)
                    .startsWith(APPLICATION_ID + "-")
                    .matches(".*-(repartition|changelog)"));
  }

  @Test
  void withoutItsLoopTopicTheProcessorStopsAndNamesIt() {
    Map<String, String> processor = chartEnv("StatefulSet", "processor");
    processor.put("NE_STATE_DIR", dir.resolve("state-undeclared").toString());
    processor.put("NE_KUBECONFIG", api.kubeconfig().toString());
    processor.put("NE_APPLICATION_ID", "undeclared-processor");

    CliRun run = CliRun.run(processor, "processor");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .contains("undeclared-processor-deny-reattribution")
        .contains(broker.bootstrapServers());
  }

  /**
   * The literal environment of a component's container as the chart renders it, pointed at the
   * test's broker.
   */
  private static Map<String, String> chartEnv(String kind, String component) {
    Map<String, String> env = new HashMap<>();
    env(container(chart.get(kind, FULLNAME + "-" + component), component))
        .forEach(
            (name, value) -> {
              if (value.equals("fieldRef:metadata.name")) {
                env.put(name, component + "-0"); // as the kubelet fills it in: the pod's name
              } else if (!value.startsWith("fieldRef:") && name.startsWith("NE_")) {
                env.put(name, value);
              }
            });
    env.put("NE_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put("NE_MANAGEMENT_PORT", "0");
    env.put("NE_PROBE_PORT", "0");
    env.put("NE_MANAGEMENT_AUTH", "none"); // no API server here: the topics are the subject
    env.put("NE_POD_NAME", component + "-0");
    env.put("NE_POD_NAMESPACE", NAMESPACE);
    return env;
  }

  private static void runUntilReady(Map<String, String> env, String command, String readyLine)
      throws Exception {
    runUntilReady(env, command, readyLine, () -> {});
  }

  /** Checks {@code whileReady} with the service up and ready, then stops it. */
  private static void runUntilReady(
      Map<String, String> env, String command, String readyLine, ThrowingRunnable whileReady)
      throws Exception {
    CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.run(env, command));
    try {
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> run.isDone() || !ServiceRunner.active().isEmpty());
      assertThat(run.isDone()).as(() -> command + " ended early: " + run.join().err()).isFalse();
      int port = ServiceRunner.active().iterator().next().probePort();
      HttpClient http = HttpClient.newHttpClient();
      await(command + " ready")
          .atMost(Duration.ofMinutes(2))
          .until(() -> run.isDone() || get(http, port, "/readyz").statusCode() == 200);
      assertThat(run.isDone()).as(() -> command + " ended: " + run.join().err()).isFalse();
      assertThat(get(http, port, "/readyz").body()).contains(readyLine);
      whileReady.run();
    } finally {
      ServiceRunner.stopAll();
      CliRun result = run.get(2, TimeUnit.MINUTES);
      assertThat(result.exitCode()).as(result.err()).isZero();
    }
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static Set<String> topicsOnTheBroker() throws Exception {
    try (Admin admin = admin()) {
      return admin
          .listTopics(new ListTopicsOptions().listInternal(true))
          .names()
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static Admin admin() {
    return Admin.create(
        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
  }

  private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
