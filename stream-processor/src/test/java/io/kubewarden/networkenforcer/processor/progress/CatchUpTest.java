package io.kubewarden.networkenforcer.processor.progress;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.processor.app.TopicPreparation;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.config.ProposalEmission;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CatchUp} against a real KRaft broker with exactly-once on (the service's default): not
 * caught up while flows wait in the flows topic or in the combiner, caught up once every flow has
 * been processed through to the proposals topic, with exact counts throughout; and a processor
 * restored from its changelogs alone keeps what it learned.
 */
class CatchUpTest {
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private static final List<FlowRecord> FLOWS = BasicFixture.goldmaneFlows();
  private static final long N = FLOWS.size();
  private static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.startDefault();
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  private static ProcessorConfig.Builder config(String run, Path stateDir) {
    KafkaSettings kafka =
        new KafkaSettings(broker.bootstrapServers(), run + ".", 2, (short) 1, Map.of());
    return ProcessorConfig.builder(kafka)
        .applicationId(run)
        .provider(Provider.calico)
        .processingGuarantee(StreamsConfig.EXACTLY_ONCE_V2)
        .evidenceFlushInterval(Duration.ofMillis(200))
        .commitInterval(Duration.ofMillis(100))
        .combineInterval(Duration.ofMillis(100))
        .stateDir(stateDir);
  }

  @Test
  void flowsWaitingInTheFlowsTopicAreNotCaughtUpUntilEveryOneIsProcessed(@TempDir Path stateDir)
      throws Exception {
    ProcessorConfig config = config("catchup-waiting", stateDir).build().validate();
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Admin admin = Admin.create(config.kafka().clientConfig())) {
      new TopicPreparation(config).prepare(admin);
      publish(config, FLOWS);
      KafkaStreams streams =
          new KafkaStreams(
              NetworkEnforcerTopology.build(config, registry), config.streamsProperties());
      try {
        CatchUp catchUp = CatchUp.of(admin, config, streams, registry);
        assertThat(catchUp.check()).isEqualTo(new Progress(0, N, false));

        streams.start();
        List<Progress> seen = new ArrayList<>();
        assertThat(catchUp.await(DEADLINE, seen::add)).isEqualTo(new Progress(N, N, true));
        assertThat(seen.get(seen.size() - 1)).isEqualTo(new Progress(N, N, true));
        assertEveryFlowLearned(config, registry);
        assertThat(catchUp.check()).isEqualTo(new Progress(N, N, true));
      } finally {
        streams.close(Duration.ofSeconds(30));
      }
      assertThat(CatchUp.of(admin, config, streams, registry).check())
          .as("a stopped processor is not caught up")
          .isEqualTo(new Progress(N, N, false));
    }
  }

  @Test
  void flowsConsumedButHeldInTheCombinerAreNotCaughtUp(@TempDir Path stateDir) throws Exception {
    // The combiner forwards on the wall clock: an hour holds every observation for this test.
    ProcessorConfig holding =
        config("catchup-combiner", stateDir)
            .combineInterval(Duration.ofHours(1))
            .build()
            .validate();
    try (Admin admin = Admin.create(holding.kafka().clientConfig())) {
      new TopicPreparation(holding).prepare(admin);
      MeterRegistry registry = new SimpleMeterRegistry();
      KafkaStreams streams =
          new KafkaStreams(
              NetworkEnforcerTopology.build(holding, registry), holding.streamsProperties());
      try {
        CatchUp catchUp = CatchUp.of(admin, holding, streams, registry);
        streams.start();
        publish(holding, FLOWS);
        Progress consumed =
            await()
                .atMost(DEADLINE)
                .pollInterval(Duration.ofMillis(50))
                .until(catchUp::check, p -> p.flowsConsumed() == N);
        assertThat(consumed).isEqualTo(new Progress(N, N, false));
        assertThatThrownBy(() -> catchUp.await(Duration.ofSeconds(1), p -> {}))
            .isInstanceOfSatisfying(
                CatchUp.TimedOut.class,
                e -> {
                  assertThat(e.progress()).isEqualTo(new Progress(N, N, false));
                  assertThat(e.timeout()).isEqualTo(Duration.ofSeconds(1));
                })
            .hasMessage("processing did not finish (6 of 6 flows consumed) within 1 s");
        assertThat(new ProcessorMetrics(registry).proposalsWritten()).isZero();
        assertThat(proposalRecords(holding)).isEmpty();
      } finally {
        // Leaving the group lets the restart below take the tasks at once, not after a session
        // timeout.
        streams.close(
            CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(30)));
      }

      // The same application, restored from its changelogs, now forwards what waited.
      ProcessorConfig forwarding =
          holding.toBuilder().combineInterval(Duration.ofMillis(100)).build().validate();
      MeterRegistry again = new SimpleMeterRegistry();
      KafkaStreams restarted =
          new KafkaStreams(
              NetworkEnforcerTopology.build(forwarding, again), forwarding.streamsProperties());
      try {
        restarted.start();
        assertThat(CatchUp.of(admin, forwarding, restarted, again).await(DEADLINE, p -> {}))
            .isEqualTo(new Progress(N, N, true));
        assertEveryFlowLearned(forwarding, again);
      } finally {
        restarted.close(Duration.ofSeconds(30));
      }
    }
  }

  @Test
  void aProcessorRestoredFromItsChangelogsOnAnotherDiskKeepsWhatItLearned(
      @TempDir Path stateDir, @TempDir Path otherDisk) throws Exception {
    // No evidence flush in the run: a learned allow-list reaches its changelog only through the
    // commits.
    ProcessorConfig first =
        config("catchup-restore", stateDir)
            .evidenceFlushInterval(Duration.ofHours(1))
            .build()
            .validate();
    try (Admin admin = Admin.create(first.kafka().clientConfig())) {
      new TopicPreparation(first).prepare(admin);
      KafkaStreams streams =
          new KafkaStreams(
              NetworkEnforcerTopology.build(first, new SimpleMeterRegistry()),
              first.streamsProperties());
      try {
        streams.start();
        publish(first, FLOWS.subList(0, 4)); // http-server on TCP 18080, then coredns on UDP 53
        await()
            .atMost(DEADLINE)
            .until(() -> egressRules(latest(first).get(CLIENT_EGRESS)).size() == 2);
      } finally {
        streams.close(
            CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(30)));
      }

      // Another disk: everything the new instance knows comes from the changelogs.
      ProcessorConfig second = first.toBuilder().stateDir(otherDisk).build().validate();
      KafkaStreams restored =
          new KafkaStreams(
              NetworkEnforcerTopology.build(second, new SimpleMeterRegistry()),
              second.streamsProperties());
      try {
        restored.start();
        publish(
            second,
            FLOWS.subList(4, 6)); // http-server on UDP 18081: a port more, not a new allow-list
        await()
            .atMost(DEADLINE)
            .until(
                () ->
                    egressRules(latest(second).get(CLIENT_EGRESS)).stream()
                        .anyMatch(rule -> rule.contains("UDP/18081")));
        assertThat(egressRules(latest(second).get(CLIENT_EGRESS)))
            .containsExactly("{app=http-server} TCP/18080 UDP/18081", "{k8s-app=kube-dns} UDP/53");
      } finally {
        restored.close(Duration.ofSeconds(30));
      }
    }
  }

  /** The latest committed proposal of every target. */
  private static Map<String, ProposalSnapshot> latest(ProcessorConfig config) {
    return latest(config, proposalRecords(config));
  }

  private static Map<String, ProposalSnapshot> latest(
      ProcessorConfig config, List<ConsumerRecord<String, byte[]>> records) {
    Topic<String, ProposalSnapshot> proposals = config.topics().proposals();
    Map<String, ProposalSnapshot> latest = new HashMap<>();
    records.forEach(
        r ->
            latest.put(
                r.key(), proposals.valueSerde().deserializer().deserialize(r.topic(), r.value())));
    return latest;
  }

  /** Each egress rule of a proposal as "{peer labels} PROTOCOL/port ...", sorted. */
  private static List<String> egressRules(ProposalSnapshot proposal) {
    if (proposal == null) {
      return List.of();
    }
    return proposal.spec().getKubernetes().getEgress().stream()
        .map(
            rule ->
                new TreeMap<>(rule.getTo().get(0).getPodSelector().getMatchLabels())
                    + " "
                    + String.join(
                        " ",
                        rule.getPorts().stream()
                            .map(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
                            .sorted()
                            .toList()))
        .sorted()
        .toList();
  }

  @Test
  void aProcessorThatHoldsChangesInMemoryUntilItsFlushIsRefused(@TempDir Path stateDir) {
    ProcessorConfig atFlush =
        config("catchup-at-flush", stateDir)
            .proposalEmission(ProposalEmission.AT_FLUSH)
            .build()
            .validate();
    MeterRegistry registry = new SimpleMeterRegistry();
    try (Admin admin = Admin.create(atFlush.kafka().clientConfig());
        KafkaStreams streams =
            new KafkaStreams(
                NetworkEnforcerTopology.build(atFlush, registry), atFlush.streamsProperties())) {
      assertThatThrownBy(() -> CatchUp.of(admin, atFlush, streams, registry))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("proposal emission AT_FLUSH")
          .hasMessageContaining("EVERY_CHANGE");
    }
  }

  /**
   * Caught up means nothing is left to come: the proposals topic holds exactly the records the
   * processor counted, and their evidence every flow (3 source + 3 destination reports per port).
   */
  private static void assertEveryFlowLearned(ProcessorConfig config, MeterRegistry registry) {
    List<ConsumerRecord<String, byte[]>> records = proposalRecords(config);
    assertThat((long) records.size()).isEqualTo(new ProcessorMetrics(registry).proposalsWritten());
    Map<String, ProposalSnapshot> latest = latest(config, records);
    assertThat(latest).containsOnlyKeys(CLIENT_EGRESS, SERVER_INGRESS, COREDNS_INGRESS);
    assertThat(latest.get(CLIENT_EGRESS).evidence().get(0).getPorts())
        .extracting(p -> p.getCount())
        .containsExactly(6L, 6L);
    assertThat(latest.get(COREDNS_INGRESS).evidence().get(0).getPorts())
        .extracting(p -> p.getCount())
        .containsExactly(6L);
  }

  private static void publish(ProcessorConfig config, List<FlowRecord> flows) throws Exception {
    Topic<String, FlowRecord> topic = config.topics().flows();
    try (KafkaProducer<String, FlowRecord> producer =
        new KafkaProducer<>(
            config.kafka().clientConfig(),
            topic.keySerde().serializer(),
            topic.valueSerde().serializer())) {
      for (FlowRecord flow : flows) {
        producer.send(new ProducerRecord<>(topic.name(), flow.partitionKey(), flow)).get();
      }
    }
  }

  /** Every committed record of the proposals topic, partition by partition. */
  private static List<ConsumerRecord<String, byte[]>> proposalRecords(ProcessorConfig config) {
    Properties p = config.kafka().clientConfig();
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<ConsumerRecord<String, byte[]>> all = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      String topic = config.topics().proposals().name();
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        consumer.poll(Duration.ofMillis(200)).forEach(all::add);
      }
    }
    return all;
  }
}
