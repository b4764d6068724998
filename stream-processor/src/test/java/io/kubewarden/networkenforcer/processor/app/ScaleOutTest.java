package io.kubewarden.networkenforcer.processor.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaCluster;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.progress.Progress;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several processor instances of one application (separate Kafka Streams instances in this JVM,
 * each with its own state directory and static membership name) on a flows topic of 4 partitions,
 * with a standby replica of every task and exactly-once on, on a cluster of three KRaft brokers
 * with replication factor 3 (issue 36, goal 2). Instances join and leave, and a broker is stopped
 * and started again, while flows come in at a steady rate; what they learn together is exactly what
 * one instance learns from the same flows: the same proposals, with the same evidence counts and
 * first/last seen times. Every topic the processor creates, its own and Kafka Streams' internal
 * ones, has 3 replicas and {@code min.insync.replicas} 2 set on the topic.
 */
class ScaleOutTest {
  private static final int PARTITIONS = 4;
  private static final int FLOWS = 4_000;
  private static final short REPLICATION = 3;
  private static final Duration DEADLINE = Duration.ofMinutes(3);
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:00Z");
  private static EmbeddedKafkaCluster brokers;

  @BeforeAll
  static void startBrokers() {
    brokers = EmbeddedKafkaCluster.start(3, Map.of());
  }

  @AfterAll
  static void stopBrokers() {
    brokers.close();
  }

  private static ProcessorConfig config(String run, Path stateDir, int standbys, String instance) {
    // A removed instance's tasks move after the session timeout (it does not leave the group on
    // close):
    // the broker's least, so the test waits 6 s rather than 45 s.
    KafkaSettings kafka =
        new KafkaSettings(
            brokers.bootstrapServers(),
            run + ".",
            PARTITIONS,
            REPLICATION,
            Map.of(
                StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
                "6000"));
    return ProcessorConfig.builder(kafka)
        .applicationId(run)
        .provider(Provider.cilium)
        .processingGuarantee(StreamsConfig.EXACTLY_ONCE_V2)
        .evidenceFlushInterval(Duration.ofMillis(500))
        .commitInterval(Duration.ofMillis(200))
        .combineInterval(Duration.ofMillis(200))
        .standbyReplicas(standbys)
        .groupInstanceId(instance)
        .stateDir(stateDir.resolve(instance))
        .build()
        .validate();
  }

  @Test
  void instancesJoiningAndLeavingUnderASteadyStreamLearnExactlyWhatOneInstanceLearns(
      @TempDir Path dir) throws Exception {
    List<FlowRecord> flows = flows();

    // One instance, every flow at once.
    ProcessorConfig alone = config("alone", dir, 0, "alone-0");
    Map<String, ProposalSnapshot> expected;
    try (StreamProcessorApp one =
        new StreamProcessorApp(alone, new SimpleMeterRegistry()).start()) {
      publish(alone, flows, 0);
      awaitCaughtUp(List.of(one));
      expected = latestProposals(alone);
    }
    // 40 clients x 8 servers: an Egress proposal per client and an Ingress proposal per server.
    assertThat(expected).hasSize(48);
    assertThat(totalCount(expected)).isEqualTo(2L * FLOWS);

    // Instances come and go while the flows arrive, about 400 a second.
    ProcessorConfig first = config("scaled", dir, 1, "processor-0");
    List<StreamProcessorApp> running = new ArrayList<>();
    List<SimpleMeterRegistry> registries =
        List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(), new SimpleMeterRegistry());
    StreamProcessorApp p0 = new StreamProcessorApp(first, registries.get(0)).start();
    running.add(p0);
    try {
      await().atMost(DEADLINE).until(p0::isReady);
      // 10 flows every 50 ms: some 20 s of flows.
      CompletableFuture<Void> stream = CompletableFuture.runAsync(() -> publish(first, flows, 50));
      awaitPublished(first, FLOWS / 6);
      StreamProcessorApp p1 =
          new StreamProcessorApp(config("scaled", dir, 1, "processor-1"), registries.get(1))
              .start();
      running.add(p1);
      await().atMost(DEADLINE).until(p1::isReady);
      awaitPublished(first, FLOWS / 3);
      StreamProcessorApp p2 =
          new StreamProcessorApp(config("scaled", dir, 1, "processor-2"), registries.get(2))
              .start();
      running.add(p2);
      await().atMost(DEADLINE).until(p2::isReady);
      awaitPublished(first, FLOWS / 2);
      // The first instance goes for good (a scale-down) with half the flows still to come: its
      // tasks move to
      // the others after the session timeout, while flows still arrive.
      running.remove(p0);
      p0.close();
      assertThat(published(first))
          .as("flows published when the first instance left")
          .isLessThan(FLOWS);
      // A broker away (a rolling restart's step) while flows come in and the first instance's tasks
      // move: with two of three replicas in sync, writes, transactions and the group go on.
      brokers.stopNode(1);
      awaitPublished(first, FLOWS * 3 / 4);
      brokers.startNode(1);
      stream.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      awaitCaughtUp(running);

      Map<String, ProposalSnapshot> together = latestProposals(first);
      assertThat(together.keySet()).isEqualTo(expected.keySet());
      for (Map.Entry<String, ProposalSnapshot> e : expected.entrySet()) {
        ProposalSnapshot got = together.get(e.getKey());
        assertThat(got.spec()).as(e.getKey()).isEqualTo(e.getValue().spec());
        assertThat(got.evidence()).as(e.getKey()).isEqualTo(e.getValue().evidence());
        assertThat(got.inferredWorkloads())
            .as(e.getKey())
            .isEqualTo(e.getValue().inferredWorkloads());
      }
      assertThat(totalCount(together)).isEqualTo(2L * FLOWS);
      assertEveryTopicReplicatedThreeTimesTwoInSync("scaled");
      // The work was shared: every instance read flows of its own partitions.
      assertThat(registries)
          .allSatisfy(
              r ->
                  assertThat(r.find("network_enforcer.processor.flows.received").counter().count())
                      .isPositive());
    } finally {
      for (StreamProcessorApp app : running) {
        app.close();
      }
      p0.close();
    }
  }

  /**
   * The topics of a run (ours, {@code <run>.flows} ..., and Kafka Streams', {@code <run>-...
   * -changelog}, {@code -repartition}): 3 replicas each, and {@code min.insync.replicas} 2 set on
   * the topic, not left to the broker's default of 1.
   */
  private static void assertEveryTopicReplicatedThreeTimesTwoInSync(String run) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brokers.bootstrapServers()))) {
      List<String> created =
          admin.listTopics().names().get().stream()
              .filter(t -> t.startsWith(run))
              .sorted()
              .toList();
      assertThat(created)
          .contains(run + ".flows", run + ".proposals", run + ".violations")
          .anyMatch(t -> t.endsWith("-changelog"))
          .anyMatch(t -> t.endsWith("-repartition"));
      for (TopicDescription t : admin.describeTopics(created).allTopicNames().get().values()) {
        assertThat(t.partitions())
            .as(t.name())
            .allSatisfy(p -> assertThat(p.replicas()).hasSize(REPLICATION));
      }
      List<ConfigResource> resources =
          created.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
      Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get();
      for (ConfigResource r : resources) {
        ConfigEntry entry = configs.get(r).get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
        assertThat(entry.source())
            .as(r.name())
            .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(entry.value()).as(r.name()).isEqualTo("2");
      }
    }
  }

  /** Every running instance answers for its own tasks: all of them caught up. */
  private static void awaitCaughtUp(List<StreamProcessorApp> apps) {
    await()
        .atMost(DEADLINE)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> apps.stream().allMatch(a -> a.progress().map(Progress::caughtUp).orElse(false)));
  }

  /** Waits until the flows topic holds at least {@code n} flows. */
  private static void awaitPublished(ProcessorConfig config, long n) {
    await()
        .atMost(DEADLINE)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> published(config) >= n);
  }

  private static long published(ProcessorConfig config) {
    try (KafkaConsumer<String, byte[]> c = consumer(config)) {
      String topic = config.topics().flows().name();
      return c.endOffsets(partitions(c, topic)).values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * Sum of every evidence count of every proposal: two observations (Egress and Ingress) per flow.
   */
  private static long totalCount(Map<String, ProposalSnapshot> proposals) {
    return proposals.values().stream()
        .flatMap(p -> p.evidence().stream())
        .flatMap(e -> e.getPorts().stream())
        .mapToLong(port -> port.getCount())
        .sum();
  }

  /**
   * 40 clients in 4 namespaces, each calling the 8 servers by turns on 3 ports, a flow per
   * millisecond.
   */
  private static List<FlowRecord> flows() {
    List<FlowEndpoint> clients = new ArrayList<>();
    for (int c = 0; c < 40; c++) {
      String ns = "team-" + (c % 4);
      clients.add(
          BasicFixture.endpoint(
              ns,
              "client-" + c,
              Map.of("app", "client-" + c),
              "client-" + c + "-5d8f9c7b6-abcde",
              "10.244.1." + (c + 10),
              "client-" + c));
    }
    List<FlowEndpoint> servers = new ArrayList<>();
    for (int s = 0; s < 8; s++) {
      servers.add(
          BasicFixture.endpoint(
              "shop",
              "server-" + s,
              Map.of("app", "server-" + s),
              "server-" + s + "-5d8f9c7b6-abcde",
              "10.244.2." + (s + 10),
              "server-" + s));
    }
    List<FlowRecord> out = new ArrayList<>();
    for (int i = 0; i < FLOWS; i++) {
      out.add(
          new FlowRecord(
              T0.plusMillis(i),
              Provider.cilium,
              Protocol.TCP,
              8080 + (i % 3),
              clients.get(i % clients.size()),
              servers.get((i / clients.size()) % servers.size()),
              Verdict.FORWARDED,
              null,
              1,
              Reporter.SOURCE));
    }
    return out;
  }

  /**
   * Sends the flows keyed as ingest does, {@code pauseMillis} after each batch of 10 (0: at once).
   */
  private static void publish(ProcessorConfig config, List<FlowRecord> flows, long pauseMillis) {
    Topic<String, FlowRecord> topic = config.topics().flows();
    Properties p = config.kafka().clientConfig();
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    try (KafkaProducer<String, FlowRecord> producer =
        new KafkaProducer<>(p, topic.keySerde().serializer(), topic.valueSerde().serializer())) {
      for (int i = 0; i < flows.size(); i++) {
        FlowRecord f = flows.get(i);
        // Record time now (the topic's retention must not delete them); the flow carries its own
        // time.
        producer.send(new ProducerRecord<>(topic.name(), f.partitionKey(), f));
        if (pauseMillis > 0 && i % 10 == 9) {
          producer.flush();
          Thread.sleep(pauseMillis);
        }
      }
      producer.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The latest committed proposal of every target. */
  private static Map<String, ProposalSnapshot> latestProposals(ProcessorConfig config) {
    Topic<String, ProposalSnapshot> proposals = config.topics().proposals();
    Map<String, ProposalSnapshot> latest = new TreeMap<>();
    try (KafkaConsumer<String, byte[]> c = consumer(config)) {
      List<TopicPartition> tps = partitions(c, proposals.name());
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          latest.put(
              r.key(), proposals.valueSerde().deserializer().deserialize(r.topic(), r.value()));
        }
      }
    }
    return latest;
  }

  private static List<TopicPartition> partitions(KafkaConsumer<String, byte[]> c, String topic) {
    return c.partitionsFor(topic).stream()
        .map(i -> new TopicPartition(topic, i.partition()))
        .toList();
  }

  private static KafkaConsumer<String, byte[]> consumer(ProcessorConfig config) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafka().bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
  }
}
