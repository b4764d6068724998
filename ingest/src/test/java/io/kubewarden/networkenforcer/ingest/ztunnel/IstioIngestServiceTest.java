package io.kubewarden.networkenforcer.ingest.ztunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.IngestConfig;
import io.kubewarden.networkenforcer.ingest.IngestService;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.LogsServiceGrpc;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.LogRecord;
import io.kubewarden.networkenforcer.ingest.transport.GrpcChannels;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.ReloadingTls;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole service for Istio: OTLP in over mutual TLS, resolved against a cluster-state file,
 * flows out to Kafka.
 */
class IstioIngestServiceTest {
  private static EmbeddedKafkaBroker broker;
  private static KafkaSettings kafka;

  @TempDir Path dir;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    kafka = new KafkaSettings(broker.bootstrapServers(), "svc.", 2, (short) 1, Map.of());
    Topics topics = kafka.topics();
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin
          .createTopics(
              List.of(
                  topics.flows().newTopic(2, (short) 1),
                  topics.deadLetter().newTopic(1, (short) 1)))
          .all()
          .get();
    }
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  @Test
  void ztunnelLogsBecomeFlowsOnTheTopicAndInTheDumper() throws Exception {
    TestCertificates ca = TestCertificates.newCa("mesh-ca");
    Path serverCerts =
        ca.issue(dir.resolve("server"), "otlp", List.of("localhost"), List.of(), false);
    Path clientCerts = ca.issue(dir.resolve("client"), "fluent-bit", List.of(), List.of(), false);
    int grpcPort = LoopbackPorts.free();
    int httpPort = LoopbackPorts.free();
    int dumperPort = LoopbackPorts.free();
    IngestConfig config =
        IngestConfig.defaults(Provider.istio)
            .withIstio(
                new OtlpSettings(
                    grpcPort,
                    httpPort,
                    TlsSettings.fromDirectory(TlsMode.issuer, serverCerts, null),
                    "fluent-bit"))
            .withClusterStateFile(Fixtures.file("cluster-state.json"))
            .withDumper(new IngestConfig.Dumper(true, dumperPort, 100));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    try (IngestService service =
        new IngestService(config, kafka, registry, null).dumperAccess(AccessCheck.open()).start()) {
      assertThat(service.isReady()).isTrue();
      List<String> lines = Files.readAllLines(Fixtures.file("ztunnel.jsonl"));
      List<LogRecord> records = new ArrayList<>();
      for (String line : lines) {
        records.add(FluentBitRequests.merged(line));
      }
      ManagedChannel channel =
          GrpcChannels.open(
              "localhost:" + grpcPort,
              TlsSettings.fromDirectory(TlsMode.issuer, clientCerts, null),
              ReloadingTls.fromDirectory(clientCerts),
              Keepalive.grpcGoCompatible());
      try {
        LogsServiceGrpc.newBlockingStub(channel).export(FluentBitRequests.request(records));
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }

      List<ConsumerRecord<String, byte[]>> got = new ArrayList<>();
      Properties p = kafka.clientConfig();
      p.put(ConsumerConfig.GROUP_ID_CONFIG, "istio-service-test");
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      try (KafkaConsumer<String, byte[]> consumer =
          new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
        consumer.subscribe(List.of(kafka.topics().flows().name()));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  consumer.poll(Duration.ofMillis(200)).forEach(got::add);
                  return !got.isEmpty();
                });
      }
      assertThat(got).hasSize(1);
      FlowRecord flow =
          kafka.topics().flows().valueSerde().deserializer().deserialize("t", got.get(0).value());
      assertThat(got.get(0).key()).isEqualTo("demo/Deployment/http-client");
      assertThat(flow.dst().workload().orElseThrow().key())
          .isEqualTo("demo/Deployment/http-server");
      assertThat(flow.src().principal()).contains("cluster.local/ns/demo/sa/http-client-sa");

      HttpResponse<String> dump =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + dumperPort + "/flow"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(dump.body().lines()).hasSize(1).first().asString().contains("http-server");
      assertThat(
              registry
                  .get("network.enforcer.ingest.flows.dropped")
                  .tag("source", "ztunnel")
                  .tag("reason", "ignored-log")
                  .counter()
                  .count())
          .isEqualTo(3);
    }
  }
}
