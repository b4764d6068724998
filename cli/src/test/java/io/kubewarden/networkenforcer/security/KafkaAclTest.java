package io.kubewarden.networkenforcer.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kubewarden.networkenforcer.cli.RunningCommand;
import io.kubewarden.networkenforcer.cli.services.CaughtUpPage;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.TopicAccess;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real broker with authentication on every listener (SASL) and an authorizer that denies what no
 * ACL allows, one principal per component with exactly its ACLs from {@link TopicAccess}: the
 * processor and the writer run as the real services with their principal (the writer against a real
 * API server) and do their work end to end; then each principal is refused one step beyond its row
 * (ingest cannot write {@code policies}, the processor cannot write {@code flows}, the writer
 * cannot write {@code flows} or read them), and a client without credentials, or with a wrong
 * password, is refused everywhere: every topic and internal topic, read and written, and every
 * consumer group.
 */
class KafkaAclTest {
  private static final String JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required "
          + "username=\"%s\" password=\"%s\"%s;";
  private static final String APPLICATION_ID = "network-enforcer-processor";
  private static final String WRITER_GROUPS = "network-enforcer-writer";

  /** The topics the services run on. */
  private static final Topics PIPELINE = Topics.withDefaultPrefix();

  /** The topics the forbidden attempts aim at: their record counts are checked alone. */
  private static final Topics REFUSALS = new Topics("refusals.");

  private static final String NS = "shop";

  /**
   * The processor's internal topics, under its application id: its loop topic and Kafka Streams'
   * observations repartition topic (the processor creates its changelogs under the same prefix).
   */
  private static final List<String> INTERNAL_TOPICS =
      List.of(APPLICATION_ID + "-deny-reattribution", APPLICATION_ID + "-observations-repartition");

  static EmbeddedKafkaBroker broker;
  static ChartedApiServer api;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    StringBuilder users = new StringBuilder(" user_admin=\"admin-secret\"");
    for (String component : List.of("ingest", "processor", "writer")) {
      users.append(" user_").append(component).append("=\"").append(component).append("-secret\"");
    }
    String brokerJaas = JAAS.formatted("admin", "admin-secret", users);
    broker =
        EmbeddedKafkaBroker.builder()
            .config(
                "listener.security.protocol.map",
                "PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT")
            .config("sasl.enabled.mechanisms", "PLAIN")
            .config("sasl.mechanism.inter.broker.protocol", "PLAIN")
            .config("sasl.mechanism.controller.protocol", "PLAIN")
            .config("listener.name.plaintext.plain.sasl.jaas.config", brokerJaas)
            .config("listener.name.controller.plain.sasl.jaas.config", brokerJaas)
            .config(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .config("super.users", "User:admin")
            .config("allow.everyone.if.no.acl.found", "false")
            .build()
            .start();
    try (Admin admin = Admin.create(client("admin"))) {
      // As an administrator (or Strimzi's KafkaTopics) declares them: no component may create a
      // shared topic.
      List<NewTopic> topics = new ArrayList<>();
      for (Topics set : List.of(PIPELINE, REFUSALS)) {
        for (Topic<?, ?> topic : set.all()) {
          topics.add(new NewTopic(topic.name(), 1, (short) 1));
        }
      }
      topics.add(new NewTopic(APPLICATION_ID + "-deny-reattribution", 1, (short) 1));
      admin.createTopics(topics).all().get();
      for (Topics set : List.of(PIPELINE, REFUSALS)) {
        admin.createAcls(TopicAccess.ingest("User:ingest", set)).all().get();
        admin.createAcls(TopicAccess.processor("User:processor", set, APPLICATION_ID)).all().get();
        admin.createAcls(TopicAccess.writer("User:writer", set, WRITER_GROUPS)).all().get();
      }
    }
    // The broker's authorizer learns the ACLs from the metadata log a moment after they are
    // committed.
    Map<String, Topic<?, ?>> own =
        Map.of(
            "ingest",
            REFUSALS.deadLetter(),
            "processor",
            REFUSALS.deadLetter(),
            "writer",
            REFUSALS.deadLetter());
    for (Map.Entry<String, Topic<?, ?>> e : own.entrySet()) {
      try (Admin a = Admin.create(client(e.getKey()))) {
        await(e.getKey() + "'s ACLs in effect")
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(
                () ->
                    a.describeTopics(List.of(e.getValue().name())).allTopicNames().get().size()
                        == 1);
      }
    }
    api = ChartedApiServer.start(NS);
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
    broker.close();
  }

  /**
   * Flows written with ingest's principal are learned by the processor running with its own
   * (exactly-once: transactions, internal topics, its group), and the proposal it writes is applied
   * by the writer running with its own: a WorkloadNetworkPolicyProposal on the API server.
   */
  @Test
  void eachComponentDoesItsWorkWithExactlyItsAcls() throws Exception {
    for (String name : List.of("cart", "catalog")) {
      api.admin()
          .resource(
              new DeploymentBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(NS)
                  .endMetadata()
                  .withNewSpec()
                  .withSelector(
                      new LabelSelectorBuilder().withMatchLabels(Map.of("app", name)).build())
                  .withNewTemplate()
                  .withNewMetadata()
                  .withLabels(Map.of("app", name))
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("app")
                  .withImage("registry.invalid/" + name)
                  .endContainer()
                  .endSpec()
                  .endTemplate()
                  .endSpec()
                  .build())
          .create();
    }
    publishFlows(3);

    Map<String, String> processor = env("processor");
    processor.put("NE_STATE_DIR", dir.resolve("state").toString());
    processor.put("NE_PROCESSING_GUARANTEE", "exactly_once_v2");
    processor.put("NE_EVIDENCE_FLUSH_INTERVAL", "200ms");
    processor.put("NE_COMMIT_INTERVAL", "100ms");
    processor.put("NE_OBSERVATION_COMBINE_INTERVAL", "100ms");
    whileRunning(
        processor,
        "processor",
        "kafka-streams ok",
        service ->
            await("processor caught up")
                .atMost(Duration.ofMinutes(2))
                .until(
                    () -> get(service.managementPort(), CaughtUpPage.PATH),
                    body ->
                        body.equals(
                            "{\"caughtUp\":true,\"flowsConsumed\":3,\"flowsPublished\":3}\n")));
    try (KafkaConsumer<byte[], byte[]> admin =
        new KafkaConsumer<>(
            readCommitted(client("admin")),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      TopicPartition proposals = new TopicPartition(PIPELINE.proposals().name(), 0);
      // Exactly two targets (cart's egress, catalog's ingress), each with one allow-list: the
      // processor republishes a target when its evidence is flushed, so how many records a
      // target gets depends on how the three flows were batched, but never its rules.
      admin.assign(List.of(proposals));
      admin.seekToBeginning(List.of(proposals));
      long end = admin.endOffsets(List.of(proposals), Duration.ofSeconds(30)).get(proposals);
      Map<String, List<ProposalSnapshot>> byTarget = new LinkedHashMap<>();
      var values = PIPELINE.proposals().valueSerde().deserializer();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (admin.position(proposals) < end && System.nanoTime() < deadline) {
        admin
            .poll(Duration.ofMillis(200))
            .forEach(
                r ->
                    byTarget
                        .computeIfAbsent(
                            new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>())
                        .add(values.deserialize(r.topic(), r.value())));
      }
      assertThat(byTarget)
          .containsOnlyKeys("shop/Deployment/cart/Egress", "shop/Deployment/catalog/Ingress");
      byTarget.forEach(
          (target, published) ->
              assertThat(published)
                  .as(target)
                  .extracting(ProposalSnapshot::spec)
                  .containsOnly(published.get(0).spec()));
    }

    Path kubeconfig =
        api.api()
            .serviceAccountKubeconfig(
                ChartedApiServer.RELEASE_NAMESPACE,
                ChartedApiServer.KUBERNETES + "-network-enforcer-writer");
    Map<String, String> writer = env("writer");
    writer.put("NE_KUBECONFIG", kubeconfig.toString());
    writer.put("NE_POD_NAME", "writer-0");
    writer.put("NE_POD_NAMESPACE", ChartedApiServer.RELEASE_NAMESPACE);
    writer.put("NE_LEASE_NAME", ChartedApiServer.leaseName(ChartedApiServer.KUBERNETES));
    writer.put("NE_TELEMETRY_COLLECTOR_STRATEGY", "none");
    whileRunning(
        writer,
        "writer",
        "writer ok",
        service ->
            await("the writer applied the proposal")
                .atMost(Duration.ofMinutes(2))
                .until(
                    () ->
                        api.admin()
                                .resources(WorkloadNetworkPolicyProposal.class)
                                .inNamespace(NS)
                                .withName("deployment-catalog-ingress")
                                .get()
                            != null));
  }

  @Test
  void everyPrincipalIsRefusedOneStepBeyondItsAcls() throws Exception {
    try (KafkaProducer<byte[], byte[]> ingest = KafkaAttempts.producer(client("ingest"))) {
      // Its own topics: accepted.
      for (Topic<?, ?> own :
          List.of(REFUSALS.flows(), REFUSALS.dataPlaneLoss(), REFUSALS.deadLetter())) {
        KafkaAttempts.send(ingest, own.name());
      }
    }
    Map<String, Boolean> attempts = KafkaAttempts.beyondEachRow(KafkaAclTest::client, REFUSALS);
    // Strangers everywhere: every topic and internal topic written and read, every group's
    // offsets read; each refused at authentication, before any ACL is looked at.
    Map<String, Properties> strangers = new LinkedHashMap<>();
    strangers.put("anonymous", anonymous());
    strangers.put("a wrong password", credentials("ingest", "guessed"));
    Map<String, String> refusal =
        Map.of("anonymous", "TimeoutException", "a wrong password", "SaslAuthenticationException");
    List<String> groups = new ArrayList<>(List.of(APPLICATION_ID));
    groups.addAll(TopicAccess.writerGroups(WRITER_GROUPS));
    for (Map.Entry<String, Properties> stranger : strangers.entrySet()) {
      KafkaAttempts.everywhere(
              stranger.getKey(), stranger.getValue(), REFUSALS, INTERNAL_TOPICS, groups)
          .forEach(
              (what, observed) -> {
                boolean refusedAsExpected = observed.equals(refusal.get(stranger.getKey()));
                if (!refusedAsExpected) {
                  System.out.println("not refused as expected: " + what + " -> " + observed);
                }
                attempts.put(what, refusedAsExpected);
              });
    }
    // The control: the same reads answered for a principal allowed them, so a refusal above is
    // the stranger's, not a probe that cannot succeed.
    assertThat(KafkaAttempts.read(client("admin"), INTERNAL_TOPICS.get(0), null)).isEqualTo("read");
    assertThat(KafkaAttempts.read(client("writer"), REFUSALS.proposals().name(), null))
        .isEqualTo("read");
    assertThat(
            KafkaAttempts.read(
                client("writer"),
                REFUSALS.proposals().name(),
                TopicAccess.writerGroups(WRITER_GROUPS).get(0)))
        .isEqualTo("read");
    long refused = attempts.values().stream().filter(r -> r).count();
    System.out.println(
        "kafka (SASL), per-component ACLs and strangers everywhere: attempts refused: "
            + refused
            + " of "
            + attempts.size());
    assertThat(attempts)
        .as("attempts refused")
        .allSatisfy((what, wasRefused) -> assertThat(wasRefused).as(what).isTrue());
    // 16 beyond the rows; per stranger 2 x (8 topics + 2 internal) + 4 groups = 24, two strangers.
    assertThat(attempts).hasSize(16 + 2 * 24);

    // Exactly ingest's three records landed, one per topic of its own; nothing anywhere else.
    try (KafkaConsumer<byte[], byte[]> admin =
        new KafkaConsumer<>(
            client("admin"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          REFUSALS.all().stream().map(t -> new TopicPartition(t.name(), 0)).toList();
      Map<TopicPartition, Long> ends = admin.endOffsets(partitions, Duration.ofSeconds(30));
      assertThat(
              ends.entrySet().stream().filter(e -> e.getValue() > 0).map(e -> e.getKey().topic()))
          .containsExactlyInAnyOrder(
              REFUSALS.flows().name(),
              REFUSALS.dataPlaneLoss().name(),
              REFUSALS.deadLetter().name());
      assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3);
    }
  }

  /** What a service does while it runs; it is stopped afterwards and must exit cleanly. */
  private interface WhileRunning {
    void check(RunningCommand service) throws Exception;
  }

  private static void whileRunning(
      Map<String, String> env, String command, String readyLine, WhileRunning check)
      throws Exception {
    try (RunningCommand service = RunningCommand.start(env, command, readyLine)) {
      check.check(service);
    }
  }

  private static String get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * The service's environment as the chart sets it with authentication: its own principal, no topic
   * creation.
   */
  private Map<String, String> env(String principal) throws IOException {
    Path file = dir.resolve(principal + ".properties");
    Properties p = credentials(principal, principal + "-secret");
    p.remove("bootstrap.servers");
    try (OutputStream out = Files.newOutputStream(file)) {
      p.store(out, null);
    }
    Map<String, String> env = new HashMap<>();
    env.put("NE_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put("NE_KAFKA_PROPERTIES_FILE", file.toString());
    env.put("NE_KAFKA_CREATE_TOPICS", "false");
    env.put("NE_KAFKA_PARTITIONS", "1");
    env.put("NE_KAFKA_REPLICATION_FACTOR", "1");
    env.put("NE_MANAGEMENT_PORT", "0");
    env.put("NE_PROBE_PORT", "0");
    env.put("NE_MANAGEMENT_AUTH", "none");
    env.put("NE_PROVIDER", "cilium");
    return env;
  }

  /** {@code count} flows from cart to catalog on TCP 8080, written with ingest's principal. */
  private static void publishFlows(int count) throws Exception {
    Topic<String, FlowRecord> flows = PIPELINE.flows();
    FlowEndpoint client = endpoint("cart", "10.0.1.5");
    FlowEndpoint server = endpoint("catalog", "10.0.2.7");
    try (KafkaProducer<String, FlowRecord> producer =
        new KafkaProducer<>(
            client("ingest"), flows.keySerde().serializer(), flows.valueSerde().serializer())) {
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

  private static FlowEndpoint endpoint(String name, String ip) {
    Map<String, String> labels = Map.of("app", name);
    return FlowEndpoint.builder()
        .namespace(NS)
        .workload(WorkloadKind.Deployment, name)
        .workloadSelector(new LabelSelectorBuilder().withMatchLabels(labels).build())
        .podLabels(labels)
        .namespaceLabels(Map.of("kubernetes.io/metadata.name", NS))
        .podName(name + "-7d4b9c-x2x8z")
        .ip(ip)
        .serviceAccount(name)
        .build();
  }

  /** Only what committed transactions wrote, as the writer reads the processor's topics. */
  private static Properties readCommitted(Properties p) {
    p.put("isolation.level", "read_committed");
    return p;
  }

  private static Properties client(String principal) {
    return credentials(principal, principal + "-secret");
  }

  private static Properties credentials(String user, String password) {
    Properties p = anonymous();
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "PLAIN");
    p.put("sasl.jaas.config", JAAS.formatted(user, password, ""));
    return p;
  }

  /** No credentials at all: plain text to a listener that requires SASL. */
  private static Properties anonymous() {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    return p;
  }
}
