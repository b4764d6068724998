package io.kubewarden.networkenforcer.ingest.hubble;

import static io.kubewarden.networkenforcer.ingest.hubble.RelayFixture.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.util.Timestamps;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.topics.MissingTopics;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.IngestConfig;
import io.kubewarden.networkenforcer.ingest.IngestService;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.publishing.FlowPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.publishing.ProducerTuning;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.ScriptedStreamService;
import io.kubewarden.networkenforcer.ingest.transport.TestServers;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest service of the cilium provider, as the platform runs it, against a scripted Hubble
 * Relay over mutual TLS and a real broker: a restart resumes from the flows topic, drops what the
 * relay resends that the topic already holds (each flow in the topic once), and the close that
 * SIGTERM runs publishes the aggregation window before the producer goes.
 */
class HubbleIngestServiceTest {
  private static final Duration WINDOW = Duration.ofSeconds(60);
  @TempDir Path dir;

  @Test
  void aRestartResumesFromTheFlowsTopicAndAStopPublishesTheOpenWindow() throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault()) {
      KafkaSettings kafka =
          new KafkaSettings(broker.bootstrapServers(), "hubble.", 2, (short) 1, Map.of());
      try (Admin admin = Admin.create(kafka.clientConfig())) {
        MissingTopics.create(
            admin,
            kafka.topics().all().stream().map(t -> t.newTopic(2, (short) 1)).toList(),
            Duration.ofSeconds(30),
            broker.bootstrapServers());
      }
      List<String> lines = RelayFixture.fixtureLines();
      // What the previous process published last: the connection of fixture line 1.
      FlowRecord before =
          new HubbleFlowParser(new WorkloadResolver(Fixtures.clusterState()), Clock.systemUTC())
              .parse(GetFlowsResponse.parseFrom(fixture(lines, 1)))
              .records()
              .get(0);
      IngestMetrics previous = new IngestMetrics(new SimpleMeterRegistry());
      try (FlowPublisher publisher =
          new FlowPublisher(kafka, ProducerTuning.defaults(), previous)) {
        publisher.accept(before);
        assertThat(publisher.settle()).isTrue();
      }

      TestCertificates ca = TestCertificates.newCa("hubble-ca");
      Path serverCerts = RelayFixture.serverCerts(ca, dir);
      Path clientCerts = RelayFixture.clientCerts(ca, dir);
      ScriptedStreamService<GetFlowsRequest> relay = RelayFixture.observer();
      Server server = TestServers.mutualTls(serverCerts, relay.definition());
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      IngestConfig config =
          IngestConfig.defaults(Provider.cilium)
              .withHubble(RelayFixture.settings(server, RelayFixture.existingSecret(clientCerts)))
              .withClusterStateFile(Fixtures.file("cluster-state.json"))
              .withProducer(ProducerTuning.defaults().withAggregationWindow(WINDOW));
      try {
        IngestService service = new IngestService(config, kafka, registry, null).start();
        StreamObserver<byte[]> call = relay.nextCall();
        Instant resume = before.lastSeen().minus(WINDOW).minusSeconds(10);
        assertThat(relay.requests().get(0).getSince())
            .as("resumed, not from now")
            .isEqualTo(Timestamps.fromMillis(resume.toEpochMilli()));

        // The previous process died (SIGKILL) with line 5 in its open window: the relay resends
        // from the resume point, line 1 too, which the topic already holds.
        call.onNext(fixture(lines, 1));
        call.onNext(fixture(lines, 5)); // the next connection of the same pods
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    registry.find("network.enforcer.ingest.flows.accepted").counter() != null
                        && registry.get("network.enforcer.ingest.flows.accepted").counter().count()
                            == 2);
        assertThat(recordsOn(kafka))
            .as("the window (the longest allowed, 60 s) is still open")
            .isEqualTo(1);

        service.close(); // what the SIGTERM hook runs
        // Line 1 was dropped as already published; line 5 went out: each connection once.
        assertThat(recordsOn(kafka)).isEqualTo(2);
        assertThat(flowsOn(kafka)).as("flows in the topic (sum of counts)").isEqualTo(2);
        assertThat(registry.get("network.enforcer.ingest.flows.published").counter().count())
            .isEqualTo(1);
        assertThat(
                registry
                    .get("network.enforcer.ingest.flows.dropped")
                    .tag("reason", "already-published")
                    .counter()
                    .count())
            .isEqualTo(1);
      } finally {
        server.shutdownNow();
      }
    }
  }

  /** The flows the topic stands for: its records' counts summed. */
  private static long flowsOn(KafkaSettings kafka) {
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Topic<String, FlowRecord> topic = kafka.topics().flows();
    long flows = 0;
    try (KafkaConsumer<String, byte[]> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      c.partitionsFor(topic.name())
          .forEach(i -> parts.add(new TopicPartition(topic.name(), i.partition())));
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          flows += topic.valueSerde().deserializer().deserialize(r.topic(), r.value()).count();
        }
      }
    }
    return flows;
  }

  private static long recordsOn(KafkaSettings kafka) {
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Topic<String, FlowRecord> topic = kafka.topics().flows();
    try (KafkaConsumer<String, byte[]> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      c.partitionsFor(topic.name())
          .forEach(i -> parts.add(new TopicPartition(topic.name(), i.partition())));
      return c.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
    }
  }
}
