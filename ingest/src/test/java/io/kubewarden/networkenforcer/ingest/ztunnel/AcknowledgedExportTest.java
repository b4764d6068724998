package io.kubewarden.networkenforcer.ingest.ztunnel;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.LogsServiceGrpc;
import io.kubewarden.networkenforcer.ingest.publishing.FlowAggregator;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.FlowPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.publishing.ProducerTuning;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.ClientIdentity;
import io.kubewarden.networkenforcer.ingest.transport.GrpcChannels;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.ReloadingTls;
import io.kubewarden.networkenforcer.ingest.transport.ServerTls;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * At-least-once from the OTLP sender to the flows topic, over real gRPC with mutual TLS and a real
 * broker: the export is answered only once Kafka acknowledged its flows (through the aggregator's
 * window), and with UNAVAILABLE, which senders retry, when Kafka could not take them; those flows
 * are counted as publish errors and reported as loss.
 */
class AcknowledgedExportTest {
  @TempDir static Path dir;
  private static EmbeddedKafkaBroker broker;
  private static KafkaSettings kafka;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    // Kafka gone: a record fails after 3 s instead of the default 2 minutes.
    kafka =
        new KafkaSettings(
            broker.bootstrapServers(),
            "ack.",
            2,
            (short) 1,
            Map.of(
                "delivery.timeout.ms",
                "3000",
                "request.timeout.ms",
                "1000",
                "max.block.ms",
                "3000"));
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin.createTopics(List.of(kafka.topics().flows().newTopic(2, (short) 1))).all().get();
    }
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @Test
  void anExportIsAnsweredAfterKafkaHasItsFlowsAndRefusedAsRetryableWhenKafkaCannotTakeThem()
      throws Exception {
    TestCertificates ca = TestCertificates.newCa("otlp-ca");
    Path serverCerts =
        ca.issue(
            dir.resolve("server"),
            "network-enforcer-otlp",
            List.of("localhost"),
            List.of("127.0.0.1"),
            false);
    Path clientCerts = ca.issue(dir.resolve("client"), "fluent-bit", List.of(), List.of(), false);
    List<String> lines = Files.readAllLines(Fixtures.file("ztunnel.jsonl"));
    // OtlpReceiverTest's request: three flows of one connection, folded into one record of count 3.
    ExportLogsServiceRequest request =
        FluentBitRequests.request(
            List.of(
                FluentBitRequests.merged(lines.get(0)),
                FluentBitRequests.merged(lines.get(1)),
                FluentBitRequests.unmerged(lines.get(1)),
                FluentBitRequests.bodyString(lines.get(1)),
                FluentBitRequests.unmerged(lines.get(2)),
                FluentBitRequests.bodyString(lines.get(3)),
                FluentBitRequests.unrelated()));
    IngestMetrics metrics = new IngestMetrics(new SimpleMeterRegistry());
    AtomicLong lost = new AtomicLong();
    try (FlowPublisher publisher = new FlowPublisher(kafka, ProducerTuning.defaults(), metrics);
        // A window far longer than the test: only the export's settle passes the flows on.
        FlowAggregator aggregator = new FlowAggregator(publisher, Duration.ofHours(1), 50_000)) {
      publisher.onLoss((count, node, at) -> lost.addAndGet(count));
      FlowIntake intake = new FlowIntake(List.of(aggregator), (s, reason, p, e) -> {}, metrics);
      OtlpLogIngestor ingestor =
          new OtlpLogIngestor(
              new ZtunnelLogParser(
                  new WorkloadResolver(Fixtures.clusterState()),
                  "cluster.local",
                  Clock.systemUTC()),
              intake);
      try (OtlpGrpcReceiver grpc =
          new OtlpGrpcReceiver(
                  0,
                  ServerTls.fromDirectory(serverCerts, true, Duration.ofMinutes(1)),
                  new ClientIdentity("fluent-bit"),
                  ingestor)
              .start()) {
        ManagedChannel channel =
            GrpcChannels.open(
                "localhost:" + grpc.port(),
                TlsSettings.fromDirectory(TlsMode.issuer, clientCerts, null),
                ReloadingTls.fromDirectory(clientCerts),
                Keepalive.grpcGoCompatible());
        try {
          var stub = LogsServiceGrpc.newBlockingStub(channel);
          stub.export(request);
          // Answered: the folded record is on the topic now, no waiting, though the window is an
          // hour.
          assertThat(intake.publishedCount()).isEqualTo(3);
          assertThat(flowsOnTopic()).isEqualTo(1);
          assertThat(
                  metrics
                      .registry()
                      .get("network.enforcer.ingest.flows.published")
                      .counter()
                      .count())
              .isEqualTo(1);

          broker.close();
          StatusRuntimeException refused =
              Assertions.assertThrows(
                  StatusRuntimeException.class,
                  () -> stub.withDeadlineAfter(60, TimeUnit.SECONDS).export(request));
          assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(
                  metrics
                      .registry()
                      .get("network.enforcer.ingest.publish.errors")
                      .counter()
                      .count())
              .isEqualTo(1);
          assertThat(lost.get()).as("flows reported lost").isEqualTo(3);
          assertThat(
                  metrics
                      .registry()
                      .get("network.enforcer.ingest.flows.published")
                      .counter()
                      .count())
              .isEqualTo(1);
        } finally {
          channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static long flowsOnTopic() {
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      String topic = kafka.topics().flows().name();
      List<TopicPartition> parts =
          List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
      return c.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
    }
  }
}
