package io.kubewarden.networkenforcer.processor.app;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processor against a real broker with exactly-once on: flows in, proposals, violations and
 * dead letters out. Subclasses say which broker: the embedded KRaft broker or a Kafka container.
 */
abstract class AbstractProcessorIntegrationTest {
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private static final int PARTITIONS = 3;

  /** {@code host:port} of the broker under test. */
  protected abstract String bootstrapServers();

  private ProcessorConfig config(String run, Path stateDir) {
    KafkaSettings kafka =
        new KafkaSettings(bootstrapServers(), run + ".", PARTITIONS, (short) 1, Map.of());
    return ProcessorConfig.builder(kafka)
        .applicationId(run)
        .provider(Provider.calico)
        .processingGuarantee(StreamsConfig.EXACTLY_ONCE_V2)
        .evidenceFlushInterval(Duration.ofSeconds(1))
        .commitInterval(Duration.ofMillis(200))
        .stateDir(stateDir)
        .build();
  }

  @Test
  void flowsInProposalsAndViolationsOutWithExactlyOnce(@TempDir Path stateDir) {
    ProcessorConfig config = config("it-" + UUID.randomUUID().toString().substring(0, 8), stateDir);
    Topics topics = config.topics();
    StreamProcessorApp app = new StreamProcessorApp(config, new SimpleMeterRegistry()).start();
    try (app;
        var producer = producer();
        var proposals = consumer(topics.proposals().name());
        var violations = consumer(topics.violations().name());
        var deadLetters = consumer(topics.deadLetter().name())) {
      await().atMost(DEADLINE).until(app::isReady);

      for (FlowRecord flow : BasicFixture.goldmaneFlows()) {
        send(
            producer,
            topics.flows().name(),
            flow.partitionKey(),
            topics.flows().valueSerde().serializer().serialize(topics.flows().name(), flow));
      }
      send(
          producer,
          topics.flows().name(),
          "demo/Deployment/http-client",
          "{broken".getBytes(StandardCharsets.UTF_8));

      Map<String, ProposalSnapshot> latest = new HashMap<>();
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (ConsumerRecord<String, byte[]> r : proposals.poll(Duration.ofMillis(200))) {
                  latest.put(
                      r.key(),
                      topics
                          .proposals()
                          .valueSerde()
                          .deserializer()
                          .deserialize(r.topic(), r.value()));
                }
                assertThat(latest).containsOnlyKeys(CLIENT_EGRESS, SERVER_INGRESS, COREDNS_INGRESS);
                assertThat(latest.get(CLIENT_EGRESS).spec().getKubernetes().getEgress()).hasSize(2);
                assertThat(latest.get(CLIENT_EGRESS).evidence().get(0).getPorts())
                    .extracting(p -> p.getCount())
                    .containsExactly(6L, 6L);
              });

      List<ConsumerRecord<String, byte[]>> dead = new ArrayList<>();
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                deadLetters.poll(Duration.ofMillis(200)).forEach(dead::add);
                assertThat(dead).hasSize(1);
              });
      assertThat(DeadLetterHeaders.get(dead.get(0).headers(), DeadLetterHeaders.REASON))
          .contains("not a valid FlowRecord");

      // Promote the client's egress in protect mode; a drop at the source is then its violation.
      PolicySnapshot policy = Policies.promoted(latest.get(CLIENT_EGRESS), Mode.protect);
      send(
          producer,
          topics.policies().name(),
          CLIENT_EGRESS,
          topics.policies().valueSerde().serializer().serialize(topics.policies().name(), policy));
      List<ViolationObservation> seen = new ArrayList<>();
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                // The policy and the flows travel on different topics: keep denying until it is
                // applied.
                FlowRecord drop =
                    new FlowRecord(
                        Instant.now(),
                        Provider.calico,
                        Protocol.TCP,
                        9999,
                        CLIENT,
                        SERVER,
                        Verdict.DENIED,
                        new PolicyRef("NetworkPolicy", "demo", policy.name()),
                        1,
                        Reporter.SOURCE);
                send(
                    producer,
                    topics.flows().name(),
                    drop.partitionKey(),
                    topics
                        .flows()
                        .valueSerde()
                        .serializer()
                        .serialize(topics.flows().name(), drop));
                for (ConsumerRecord<String, byte[]> r : violations.poll(Duration.ofMillis(300))) {
                  assertThat(r.key()).isEqualTo("demo/deployment-http-client-egress");
                  seen.add(
                      topics
                          .violations()
                          .valueSerde()
                          .deserializer()
                          .deserialize(r.topic(), r.value()));
                }
                assertThat(seen).isNotEmpty();
              });
      ViolationObservation v = seen.get(0);
      assertThat(v.action()).isEqualTo(Mode.protect);
      assertThat(v.dstPort()).isEqualTo(9999);
      assertThat(v.source().getOwnerName()).isEqualTo("http-client");
      assertThat(v.dest().getOwnerName()).isEqualTo("http-server");
    }
    assertThat(app.isReady()).isFalse();
    assertThat(app.state()).isEqualTo(KafkaStreams.State.NOT_RUNNING);
    assertThat(app.fatalError()).isNull();

    // A new instance on an empty state directory restores what was learned from the changelogs:
    // one more flow on a known port only moves evidence (6 + 1), it starts nothing afresh.
    ProcessorConfig restarted = config.toBuilder().stateDir(stateDir.resolve("restarted")).build();
    try (var again = new StreamProcessorApp(restarted, new SimpleMeterRegistry()).start();
        var producer = producer();
        var proposals = consumer(topics.proposals().name())) {
      await().atMost(DEADLINE).until(again::isReady);
      FlowRecord known =
          BasicFixture.forwarded(
              Provider.calico,
              Instant.parse("2026-08-03T16:00:00Z"),
              CLIENT,
              SERVER,
              Protocol.TCP,
              18080,
              1,
              Reporter.SOURCE);
      send(
          producer,
          topics.flows().name(),
          known.partitionKey(),
          topics.flows().valueSerde().serializer().serialize(topics.flows().name(), known));
      Map<String, ProposalSnapshot> latest = new HashMap<>();
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (ConsumerRecord<String, byte[]> r : proposals.poll(Duration.ofMillis(200))) {
                  latest.put(
                      r.key(),
                      topics
                          .proposals()
                          .valueSerde()
                          .deserializer()
                          .deserialize(r.topic(), r.value()));
                }
                assertThat(latest.get(SERVER_INGRESS)).isNotNull();
                assertThat(latest.get(SERVER_INGRESS).evidence().get(0).getPorts())
                    .extracting(p -> p.getCount())
                    .containsExactly(7L, 6L);
              });
      assertThat(latest.get(SERVER_INGRESS).spec().getKubernetes().getIngress()).hasSize(1);
    }
  }

  /**
   * The cluster DNS of a new cluster of 4,000 workloads: its proposal is larger than Kafka's
   * default 1 MiB record (the stream thread failed on it), and it gains a peer per workload within
   * seconds (each of its proposals renders every peer: one per new peer would be quadratic in
   * bytes). It is published whole, at most once per proposal interval and once per evidence flush.
   */
  @Test
  void theClusterDnsOfThousandsOfWorkloadsIsPublishedWholeAndOncePerInterval(
      @TempDir Path stateDir) {
    int clients = 4_000;
    ProcessorConfig config = config("it-" + UUID.randomUUID().toString().substring(0, 8), stateDir);
    Topics topics = config.topics();
    StreamProcessorApp app = new StreamProcessorApp(config, new SimpleMeterRegistry()).start();
    try (app;
        var producer = producer();
        var proposals = consumer(topics.proposals().name())) {
      await().atMost(DEADLINE).until(app::isReady);
      long start = System.nanoTime();
      for (int i = 0; i < clients; i++) {
        String name = "client-" + i;
        FlowRecord flow =
            BasicFixture.forwarded(
                Provider.calico,
                Instant.parse("2026-08-03T16:00:00Z").plusMillis(i),
                BasicFixture.endpoint(
                    "team-" + (i % 20),
                    name,
                    Map.of("app", name),
                    name + "-6d4cf56db6-x1",
                    "10.244." + (i / 250) + "." + (i % 250),
                    name),
                BasicFixture.COREDNS,
                Protocol.UDP,
                53,
                1,
                Reporter.SOURCE);
        producer.send(
            new ProducerRecord<>(
                topics.flows().name(),
                flow.partitionKey(),
                topics.flows().valueSerde().serializer().serialize(topics.flows().name(), flow)));
      }
      producer.flush();

      List<Integer> dnsRecordBytes = new ArrayList<>();
      Map<String, ProposalSnapshot> latest = new HashMap<>();
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (ConsumerRecord<String, byte[]> r : proposals.poll(Duration.ofMillis(200))) {
                  if (r.key().equals(COREDNS_INGRESS)) {
                    dnsRecordBytes.add(r.value().length);
                  }
                  latest.put(
                      r.key(),
                      topics
                          .proposals()
                          .valueSerde()
                          .deserializer()
                          .deserialize(r.topic(), r.value()));
                }
                assertThat(app.fatalError()).isNull();
                assertThat(latest.get(COREDNS_INGRESS)).isNotNull();
                assertThat(latest.get(COREDNS_INGRESS).evidence()).hasSize(clients);
                // The clients' Egress targets are on other partitions: their tasks may finish after
                // the DNS's.
                assertThat(latest.keySet().stream().filter(k -> k.endsWith("/Egress")))
                    .hasSize(clients);
              });
      double seconds = (System.nanoTime() - start) / 1e9;
      assertThat(dnsRecordBytes.stream().mapToInt(Integer::intValue).max().orElseThrow())
          .as("the whole proposal, larger than a default Kafka record")
          .isGreaterThan(1024 * 1024);
      // The first change at once, then at most one per proposal interval (1 s) and one per evidence
      // flush (1 s here) while it was learned; one per new peer would be 4,000.
      assertThat(dnsRecordBytes)
          .as("coredns proposals in %.1f s", seconds)
          .hasSizeLessThanOrEqualTo(1 + 2 * ((int) Math.ceil(seconds) + 1));
    }
  }

  @Test
  void everyTopicTheProcessorCreatesSaysHowManyReplicasMustBeInSync(@TempDir Path stateDir)
      throws Exception {
    String run = "it-" + UUID.randomUUID().toString().substring(0, 8);
    ProcessorConfig config = config(run, stateDir);
    try (StreamProcessorApp app =
            new StreamProcessorApp(config, new SimpleMeterRegistry()).start();
        Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
      await().atMost(DEADLINE).until(app::isReady);
      // Ours (<prefix>flows ...) and Kafka Streams' own (<application id>-...-changelog,
      // -repartition).
      List<String> created =
          admin.listTopics().names().get().stream()
              .filter(t -> t.startsWith(run))
              .sorted()
              .toList();
      assertThat(created)
          .contains(config.topics().flows().name(), config.reattributionTopic())
          .anyMatch(t -> t.endsWith("-changelog"))
          .anyMatch(t -> t.endsWith("-repartition"));
      List<ConfigResource> resources =
          created.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
      Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get();
      for (ConfigResource r : resources) {
        ConfigEntry entry = configs.get(r).get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
        // Set on the topic itself (replication factor 1 here: 1), not the broker's default.
        assertThat(entry.source())
            .as(r.name())
            .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(entry.value()).as(r.name()).isEqualTo("1");
      }
    }
  }

  @Test
  void theGroupInstanceIdReachesTheStreamsConsumerAsStaticMembership(@TempDir Path stateDir)
      throws Exception {
    String run = "it-" + UUID.randomUUID().toString().substring(0, 8);
    ProcessorConfig config =
        config(run, stateDir).toBuilder()
            .groupInstanceId("processor-0")
            .streamThreads(2)
            .build()
            .validate();
    try (StreamProcessorApp app =
            new StreamProcessorApp(config, new SimpleMeterRegistry()).start();
        Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
      await().atMost(DEADLINE).until(app::isReady);
      // One static member per stream thread, named by Kafka Streams <group.instance.id>-<thread>.
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () ->
                  assertThat(
                          admin.describeConsumerGroups(List.of(run)).all().get().get(run).members())
                      .extracting(m -> m.groupInstanceId().orElse("dynamic"))
                      .containsExactlyInAnyOrder("processor-0-1", "processor-0-2"));
    }
  }

  @Test
  void topicsWithDifferentPartitionCountsStopTheStartWithAClearMessage(@TempDir Path stateDir)
      throws Exception {
    ProcessorConfig config = config("it-" + UUID.randomUUID().toString().substring(0, 8), stateDir);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
      admin
          .createTopics(List.of(new NewTopic(config.topics().policies().name(), 2, (short) 1)))
          .all()
          .get();
    }

    StreamProcessorApp app = new StreamProcessorApp(config, new SimpleMeterRegistry());
    assertThatThrownBy(app::start)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("not co-partitioned")
        .hasMessageContaining(config.topics().policies().name() + " has 2 partitions")
        .hasMessageContaining(config.topics().control().name() + " has 3 partitions");
    app.close();
    assertThat(app.isReady()).isFalse();
  }

  private KafkaProducer<String, byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  private static void send(
      KafkaProducer<String, byte[]> producer, String topic, String key, byte[] value) {
    try {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    } catch (Exception e) {
      throw new IllegalStateException("cannot produce to " + topic, e);
    }
  }

  private KafkaConsumer<String, byte[]> consumer(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // Exactly-once output is visible only once committed.
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of(topic));
    return consumer;
  }
}
