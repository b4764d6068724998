package io.kubewarden.networkenforcer.cli.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.kubewarden.networkenforcer.writer.proposals.LearningResetFinalizer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distributed commands against an existing Kafka (one embedded broker for the class) and, for
 * the writer, a real kube-apiserver prepared like an installed chart, configured through NE_*
 * variables as the chart and docker-compose do: each comes up, reports ready and serves its
 * metrics, and stops cleanly.
 */
class DistributedServicesTest {
  static EmbeddedKafkaBroker broker;

  /**
   * The real API server as an installed chart prepares it; the writer runs as the chart's service
   * account.
   */
  static ChartedApiServer api;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    broker = EmbeddedKafkaBroker.startDefault();
    api = ChartedApiServer.start("shop");
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
    broker.close();
  }

  private Map<String, String> kafkaEnv() {
    return Map.of(
        "NE_KAFKA_BOOTSTRAP_SERVERS",
        broker.bootstrapServers(),
        "NE_KAFKA_REPLICATION_FACTOR",
        "1",
        "NE_KAFKA_PARTITIONS",
        "2",
        "NE_MANAGEMENT_PORT",
        "0",
        "NE_PROBE_PORT",
        "0",
        // The management port's authentication is ManagementAuthTest's; here the pages themselves.
        "NE_MANAGEMENT_AUTH",
        "none",
        "NE_PROVIDER",
        "cilium");
  }

  /**
   * The chart's post-delete hook command: a proposal deleted while no writer runs goes, another one
   * loses only the writer's finalizer.
   */
  @Test
  void releaseFinalizersFreesEveryProposal() {
    KubernetesClient admin = api.admin();
    List<String> names = List.of("released-deleted", "released-kept");
    for (String name : names) {
      String yaml =
          String.join(
              "\n",
              "apiVersion: networkenforcer.kubewarden.io/v1",
              "kind: WorkloadNetworkPolicyProposal",
              "metadata:",
              "  name: " + name,
              "  namespace: shop",
              "  finalizers: [" + LearningResetFinalizer.NAME + "]",
              "spec:",
              "  backend: kubernetes",
              "  direction: Ingress",
              "  targetRef: {kind: Deployment, name: web}",
              "  kubernetes:",
              "    podSelector: {matchLabels: {app: web}}",
              "    policyTypes: [Ingress]");
      admin
          .resource(
              admin
                  .getKubernetesSerialization()
                  .unmarshal(yaml, WorkloadNetworkPolicyProposal.class))
          .create();
    }
    var proposals = admin.resources(WorkloadNetworkPolicyProposal.class).inNamespace("shop");
    proposals.withName(names.get(0)).delete();
    assertThat(proposals.withName(names.get(0)).get()).as("held by the finalizer").isNotNull();

    CliRun run =
        CliRun.run("release-finalizers", "--kubeconfig", api.api().kubeconfig().toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).startsWith("finalizer removed from 2 proposal(s), via kubeconfig ");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> proposals.withName(names.get(0)).get() == null);
    assertThat(proposals.withName(names.get(1)).get().getMetadata().getFinalizers()).isEmpty();
  }

  @Test
  void processorComesUpReadyWithStreamsAndLagMetrics() throws Exception {
    Map<String, String> env = new HashMap<>(kafkaEnv());
    env.put("NE_STATE_DIR", dir.toString());
    env.put("NE_PROCESSING_GUARANTEE", "at_least_once");
    env.put("NE_EVIDENCE_FLUSH_INTERVAL", "200ms");
    env.put("NE_COMMIT_INTERVAL", "100ms");
    env.put("NE_OBSERVATION_COMBINE_INTERVAL", "100ms");
    String metrics =
        runUntilReady(
            env,
            "processor",
            "kafka-streams ok",
            (http, port) -> {
              // Nothing published yet: caught up with none; then with exactly the flows published.
              await()
                  .atMost(Duration.ofMinutes(2))
                  .until(
                      () -> get(http, port, CaughtUpPage.PATH).body(),
                      body ->
                          body.equals(
                              "{\"caughtUp\":true,\"flowsConsumed\":0,\"flowsPublished\":0}\n"));
              HttpResponse<String> page = get(http, port, CaughtUpPage.PATH);
              assertThat(page.statusCode()).isEqualTo(200);
              assertThat(page.headers().firstValue("Content-Type")).contains("application/json");
              publishFlows(3);
              await()
                  .atMost(Duration.ofMinutes(2))
                  .until(
                      () -> get(http, port, CaughtUpPage.PATH).body(),
                      body ->
                          body.equals(
                              "{\"caughtUp\":true,\"flowsConsumed\":3,\"flowsPublished\":3}\n"));
            });
    assertThat(metrics)
        .contains("service=\"processor\"")
        .containsPattern("kafka_consumer_\\w*lag\\w*")
        .contains("network_enforcer_processor_flows_received_total");
  }

  @Test
  void processorLivenessFailsWhenKafkaStreamsGoesToError() throws Exception {
    Map<String, String> env = new HashMap<>(kafkaEnv());
    // Topics of their own: this test deletes its flows topic.
    String prefix = "liveness-test.";
    env.put("NE_KAFKA_TOPIC_PREFIX", prefix);
    env.put("NE_STATE_DIR", dir.toString());
    env.put("NE_PROCESSING_GUARANTEE", "at_least_once");
    runUntilReady(
        env,
        "processor",
        "kafka-streams ok",
        (http, port) -> {
          assertThat(get(http, probePort(), "/healthz").body())
              .isEqualTo("threads ok\nkafka-streams ok\n");
          // A source topic gone under a running topology: Kafka Streams' thread fails, the client
          // goes to ERROR
          // and stays there; the process still answers, only a restart brings processing back.
          String flows =
              new KafkaSettings(broker.bootstrapServers(), prefix, 2, (short) 1, Map.of())
                  .topics()
                  .flows()
                  .name();
          try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.deleteTopics(List.of(flows)).all().get(30, TimeUnit.SECONDS);
          }
          await()
              .atMost(Duration.ofMinutes(2))
              .until(() -> get(http, probePort(), "/healthz").statusCode() == 503);
          assertThat(get(http, probePort(), "/healthz").body())
              .isEqualTo("threads ok\nkafka-streams failing\n");
          assertThat(get(http, probePort(), "/readyz").statusCode()).isEqualTo(503);
        });
  }

  /**
   * {@code count} flows from one client pod to a server on TCP 8080, as the Cilium ingest publishes
   * them.
   */
  /**
   * {@code --discover-cluster-cidrs} as the chart runs it (the processor's service account, the
   * chart's RBAC): the processor reads the cluster's ranges at start, and the rule it widens from
   * eleven outside addresses on one port excepts exactly them (without ranges it is {@code
   * 0.0.0.0/0} without except, {@code LearnExternalWideningTest}).
   */
  @Test
  void processorExceptsTheDiscoveredRangesFromTheWidenedRule() throws Exception {
    api.admin()
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("node-a")
                .endMetadata()
                .withNewSpec()
                .withPodCIDR("10.244.0.0/24")
                .withPodCIDRs("10.244.0.0/24", "fd00:10:244::/64")
                .endSpec()
                .build())
        .create();
    // Topics of their own: the other tests count the flows they publish.
    String prefix = "ranges-test.";
    Map<String, String> env = new HashMap<>(kafkaEnv());
    env.put("NE_KAFKA_TOPIC_PREFIX", prefix);
    env.put("NE_APPLICATION_ID", "ranges-test-processor");
    env.put("NE_STATE_DIR", dir.toString());
    env.put("NE_PROCESSING_GUARANTEE", "at_least_once");
    env.put("NE_COMMIT_INTERVAL", "100ms");
    env.put("NE_OBSERVATION_COMBINE_INTERVAL", "100ms");
    env.put("NE_DISCOVER_CLUSTER_CIDRS", "true");
    env.put(
        "NE_KUBECONFIG",
        api.api()
            .serviceAccountKubeconfig(
                ChartedApiServer.RELEASE_NAMESPACE,
                ChartedApiServer.KUBERNETES + "-network-enforcer-processor")
            .toString());
    Topics topics =
        new KafkaSettings(broker.bootstrapServers(), prefix, 2, (short) 1, Map.of()).topics();
    runUntilReady(
        env,
        "processor",
        "kafka-streams ok",
        (http, port) -> {
          FlowEndpoint client = endpoint("shop", "cart", "10.0.1.5");
          List<FlowRecord> flows = new ArrayList<>();
          Instant t = Instant.parse("2026-08-03T15:40:01Z");
          for (int i = 1; i <= 11; i++) {
            flows.add(
                new FlowRecord(
                    t.plusSeconds(i),
                    Provider.cilium,
                    Protocol.TCP,
                    443,
                    client,
                    FlowEndpoint.outsideCluster(
                        "52.216.8." + i, ExternalEndpoint.of(List.of("bucket.example.com"))),
                    Verdict.FORWARDED,
                    null,
                    1,
                    Reporter.SOURCE));
          }
          publish(topics.flows(), flows);
          String widened = awaitProposal(topics.proposals(), "0.0.0.0/0");
          // The harness's default ServiceCIDR, then the node's blocks, split by family.
          assertThat(widened)
              .contains(
                  "{\"ipBlock\":{\"cidr\":\"0.0.0.0/0\",\"except\":[\""
                      + "10.96.0.0/24\",\"10.244.0.0/24\"]}}")
              .contains("{\"ipBlock\":{\"cidr\":\"::/0\",\"except\":[\"fd00:10:244::/64\"]}}")
              .doesNotContain("52.216.8.");
        });
  }

  private static void publish(Topic<String, FlowRecord> topic, List<FlowRecord> flows)
      throws Exception {
    try (KafkaProducer<String, FlowRecord> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", broker.bootstrapServers()),
            topic.keySerde().serializer(),
            topic.valueSerde().serializer())) {
      for (FlowRecord flow : flows) {
        producer.send(new ProducerRecord<>(topic.name(), flow.partitionKey(), flow)).get();
      }
    }
  }

  /** The JSON of the latest proposal on the topic that contains {@code text}, within a minute. */
  private static String awaitProposal(Topic<String, ProposalSnapshot> topic, String text)
      throws Exception {
    try (KafkaConsumer<String, ProposalSnapshot> consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                broker.bootstrapServers(),
                "group.id",
                "ranges-test-reader",
                "auto.offset.reset",
                "earliest"),
            topic.keySerde().deserializer(),
            topic.valueSerde().deserializer())) {
      consumer.subscribe(List.of(topic.name()));
      Instant deadline = Instant.now().plusSeconds(60);
      List<String> seen = new ArrayList<>();
      while (Instant.now().isBefore(deadline)) {
        for (ConsumerRecord<String, ProposalSnapshot> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value() != null) {
            String json = Json.mapper().writeValueAsString(r.value().spec());
            seen.add(json);
            if (json.contains(text)) {
              return json;
            }
          }
        }
      }
      throw new AssertionError("no proposal with " + text + " within 60 s; seen: " + seen);
    }
  }

  private static void publishFlows(int count) throws Exception {
    Topic<String, FlowRecord> flows =
        new KafkaSettings(broker.bootstrapServers(), null, 2, (short) 1, Map.of()).topics().flows();
    FlowEndpoint client = endpoint("shop", "cart", "10.0.1.5");
    FlowEndpoint server = endpoint("shop", "catalog", "10.0.2.7");
    try (KafkaProducer<String, FlowRecord> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", broker.bootstrapServers()),
            flows.keySerde().serializer(),
            flows.valueSerde().serializer())) {
      Instant t = Instant.parse("2026-08-03T15:40:01Z");
      for (int i = 0; i < count; i++) {
        FlowRecord flow =
            new FlowRecord(
                t.plusSeconds(i),
                Provider.cilium,
                Protocol.TCP,
                8080,
                client,
                server,
                Verdict.FORWARDED,
                null,
                1,
                Reporter.SOURCE);
        producer.send(new ProducerRecord<>(flows.name(), flow.partitionKey(), flow)).get();
      }
    }
  }

  private static FlowEndpoint endpoint(String namespace, String name, String ip) {
    Map<String, String> labels = Map.of("app", name);
    return FlowEndpoint.builder()
        .namespace(namespace)
        .workload(WorkloadKind.Deployment, name)
        .workloadSelector(new LabelSelectorBuilder().withMatchLabels(labels).build())
        .podLabels(labels)
        .namespaceLabels(Map.of("kubernetes.io/metadata.name", namespace))
        .podName(name + "-7d4b9c-x2x8z")
        .ip(ip)
        .serviceAccount(name)
        .build();
  }

  @Test
  void writerComesUpAgainstTheApiServer() throws Exception {
    // Ready only as the leader with synced caches (no other writer here), so this needs a real API
    // server.
    Path kubeconfig =
        api.api()
            .serviceAccountKubeconfig(
                ChartedApiServer.RELEASE_NAMESPACE,
                ChartedApiServer.KUBERNETES + "-network-enforcer-writer");
    Map<String, String> env = new HashMap<>(kafkaEnv());
    env.put("NE_KUBECONFIG", kubeconfig.toString());
    env.put("NE_POD_NAME", "writer-0");
    env.put("NE_POD_NAMESPACE", ChartedApiServer.RELEASE_NAMESPACE);
    env.put("NE_LEASE_NAME", ChartedApiServer.leaseName(ChartedApiServer.KUBERNETES));
    env.put("NE_STATUS_SYNC_INTERVAL", "5s");
    env.put("NE_TELEMETRY_COLLECTOR_STRATEGY", "none");
    String metrics = runUntilReady(env, "writer", "writer ok");
    assertThat(metrics).contains("service=\"writer\"").contains("network_enforcer_writer_leader");
  }

  @Test
  void ingestComesUpWithTheOtlpReceiverAndACaptureClusterState() throws Exception {
    Map<String, String> env = new HashMap<>(kafkaEnv());
    int otlp = LoopbackPorts.free();
    env.put("NE_PROVIDER", "istio");
    env.put("NE_PROVIDER_TLS_MODE", "insecure");
    env.put("NE_OTLP_PORT", String.valueOf(otlp));
    env.put("NE_OTLP_HTTP_PORT", "0");
    env.put("NE_CLUSTER_STATE", CliRun.sample("cluster-state.json").toString());
    String metrics = runUntilReady(env, "ingest", "ingest ok");
    assertThat(metrics).contains("service=\"ingest\"").contains("jvm_threads_live_threads");
  }

  /**
   * The probe port of the service running now (the checks are there, not on the management port).
   */
  private static int probePort() {
    return ServiceRunner.active().iterator().next().probePort();
  }

  /** What a test asks of a service's management port while it runs. */
  private interface WhileRunning {
    void check(HttpClient http, int port) throws Exception;
  }

  private String runUntilReady(Map<String, String> env, String command, String readyLine)
      throws Exception {
    return runUntilReady(env, command, readyLine, (http, port) -> {});
  }

  private String runUntilReady(
      Map<String, String> env, String command, String readyLine, WhileRunning whileRunning)
      throws Exception {
    CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.run(env, command));
    try {
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> run.isDone() || !ServiceRunner.active().isEmpty());
      assertThat(run.isDone()).as(() -> command + " ended early: " + run.join().err()).isFalse();
      int port = ServiceRunner.active().iterator().next().managementPort();
      int probes = ServiceRunner.active().iterator().next().probePort();
      HttpClient http = HttpClient.newHttpClient();
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> get(http, probes, "/readyz").statusCode() == 200);
      assertThat(get(http, probes, "/readyz").body()).contains(readyLine);
      assertThat(get(http, probes, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(http, port, "/healthz").statusCode())
          .as("probes only on the probe port")
          .isEqualTo(404);
      whileRunning.check(http, port);
      return get(http, port, "/metrics").body();
    } finally {
      ServiceRunner.stopAll();
      CliRun result = run.get(2, TimeUnit.MINUTES);
      assertThat(result.exitCode()).as(result.err()).isZero();
    }
  }

  private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
