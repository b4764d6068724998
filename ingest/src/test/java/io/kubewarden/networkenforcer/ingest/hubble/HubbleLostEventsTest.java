package io.kubewarden.networkenforcer.ingest.hubble;

import static io.kubewarden.networkenforcer.ingest.hubble.RelayFixture.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Timestamp;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.LostEvent;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.LostEventSource;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.proto.hubble.relay.NodeState;
import io.kubewarden.networkenforcer.ingest.proto.hubble.relay.NodeStatusEvent;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.publishing.LossPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.LossWindows;
import io.kubewarden.networkenforcer.ingest.transport.ScriptedStreamService;
import io.kubewarden.networkenforcer.ingest.transport.TestServers;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live loss: a Hubble Relay stand-in (our Observer service over mutual TLS) sends {@code
 * lost_events} of two nodes among flows; the ingest counts them per node and window and publishes
 * exactly that to the {@code data-plane-loss} topic of a real broker, while the flows go on as
 * before. Relay's node status says when it could not read a node: that time is published as a loss
 * without a count ({@code nodeUnavailable}), up to the node's return, or up to the window's end
 * while it is away.
 */
class HubbleLostEventsTest {
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:00Z");

  @TempDir Path dir;

  private final List<FlowRecord> published = new CopyOnWriteArrayList<>();
  private Server server;
  private HubbleSource source;
  private EmbeddedKafkaBroker broker;

  @AfterEach
  void tearDown() {
    if (source != null) {
      source.close();
    }
    if (server != null) {
      server.shutdownNow();
    }
    if (broker != null) {
      broker.close();
    }
  }

  private static byte[] lost(String node, long count, Instant last) {
    return GetFlowsResponse.newBuilder()
        .setNodeName(node)
        .setTime(Timestamp.newBuilder().setSeconds(last.getEpochSecond() + 1))
        .setLostEvents(
            LostEvent.newBuilder()
                .setSource(LostEventSource.PERF_EVENT_RING_BUFFER)
                .setNumEventsLost(count)
                .setFirst(Timestamp.newBuilder().setSeconds(last.getEpochSecond() - 1))
                .setLast(Timestamp.newBuilder().setSeconds(last.getEpochSecond())))
        .build()
        .toByteArray();
  }

  private static byte[] nodeStatus(NodeState state, Instant at, String... nodes) {
    return GetFlowsResponse.newBuilder()
        .setTime(Timestamp.newBuilder().setSeconds(at.getEpochSecond()))
        .setNodeStatus(
            NodeStatusEvent.newBuilder()
                .setStateChange(state)
                .addAllNodeNames(List.of(nodes))
                .setMessage("peer " + state))
        .build()
        .toByteArray();
  }

  @Test
  void lostEventsAmongFlowsArePublishedPerNodeAndWindowWithExactCounts() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    KafkaSettings kafka =
        new KafkaSettings(broker.bootstrapServers(), "loss.", 1, (short) 1, Map.of());
    Topics topics = kafka.topics();
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin.createTopics(List.of(topics.dataPlaneLoss().newTopic(2, (short) 1))).all().get();
    }
    TestCertificates ca = TestCertificates.newCa("hubble-ca");
    Path serverCerts = RelayFixture.serverCerts(ca, dir);
    Path clientCerts = RelayFixture.clientCerts(ca, dir);
    ScriptedStreamService<GetFlowsRequest> observer = RelayFixture.observer();
    server = TestServers.mutualTls(serverCerts, observer.definition());
    List<String> fixtureLines = RelayFixture.fixtureLines();

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    IngestMetrics metrics = new IngestMetrics(registry);
    LossPublisher publisher = new LossPublisher(kafka, metrics);
    // One window for the whole test: the records leave when the windows close.
    LossWindows windows =
        new LossWindows(
            Provider.cilium,
            Duration.ofHours(1),
            publisher,
            Clock.fixed(T0.plusSeconds(120), ZoneOffset.UTC));
    FlowIntake intake =
        new FlowIntake(List.of(published::add), (src, reason, payload, error) -> {}, metrics)
            .withLossSink(windows);
    source = RelayFixture.source(server, RelayFixture.existingSecret(clientCerts), intake);
    source.start();

    StreamObserver<byte[]> call = observer.nextCall();
    call.onNext(fixture(fixtureLines, 1)); // a flow
    call.onNext(lost("kind/kind-worker", 25, T0));
    call.onNext(fixture(fixtureLines, 5)); // the next connection
    call.onNext(lost("kind/kind-worker2", 2, T0.plusSeconds(3)));
    call.onNext(lost("kind/kind-worker", 15, T0.plusSeconds(9)));
    // Relay loses worker3 for 30 s, and worker4 (with worker3 again, in error) until the window
    // ends.
    call.onNext(nodeStatus(NodeState.NODE_UNAVAILABLE, T0.plusSeconds(20), "kind/kind-worker3"));
    call.onNext(
        nodeStatus(
            NodeState.NODE_CONNECTED, T0.plusSeconds(50), "kind/kind-worker3", "kind/kind-worker"));
    call.onNext(nodeStatus(NodeState.NODE_ERROR, T0.plusSeconds(60), "kind/kind-worker4"));
    // A captured record: 42 lost on default/worker-1, only the response carries a time.
    call.onNext(fixture(fixtureLines, 33));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                registry.find("network.enforcer.ingest.hubble.lost.events").counter() != null
                    && registry.get("network.enforcer.ingest.hubble.lost.events").counter().count()
                        == 84);
    await().atMost(Duration.ofSeconds(20)).until(() -> published.size() == 2);

    source.close();
    source = null;
    windows.close();
    publisher.close();

    List<DataPlaneLoss> got = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> r : consume(kafka, topics.dataPlaneLoss().name(), 5)) {
      DataPlaneLoss loss =
          topics.dataPlaneLoss().valueSerde().deserializer().deserialize(r.topic(), r.value());
      assertThat(r.key()).isEqualTo(loss.key());
      got.add(loss);
    }
    assertThat(got)
        .containsExactlyInAnyOrder(
            new DataPlaneLoss(Provider.cilium, "kind/kind-worker", T0, T0.plusSeconds(9), 40, 2),
            new DataPlaneLoss(
                Provider.cilium, "kind/kind-worker2", T0.plusSeconds(3), T0.plusSeconds(3), 2, 1),
            new DataPlaneLoss(
                Provider.cilium,
                "default/worker-1",
                Instant.parse("2026-08-03T15:40:12Z"),
                Instant.parse("2026-08-03T15:40:12Z"),
                42,
                1),
            DataPlaneLoss.unavailable(
                Provider.cilium, "kind/kind-worker3", T0.plusSeconds(20), T0.plusSeconds(50)),
            DataPlaneLoss.unavailable(
                Provider.cilium, "kind/kind-worker4", T0.plusSeconds(60), T0.plusSeconds(120)));
    assertThat(got.stream().mapToLong(DataPlaneLoss::lostEvents).sum()).isEqualTo(84);
    // Loss reports are no flows and no dead letters.
    assertThat(published).hasSize(2);
  }

  private static List<ConsumerRecord<String, byte[]>> consume(
      KafkaSettings kafka, String topic, int count) {
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<String, byte[]>> result = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (result.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(result::add);
      }
      // Nothing more than promised arrives.
      consumer.poll(Duration.ofMillis(500)).forEach(result::add);
    }
    assertThat(result).as("records on %s", topic).hasSize(count);
    return result;
  }
}
