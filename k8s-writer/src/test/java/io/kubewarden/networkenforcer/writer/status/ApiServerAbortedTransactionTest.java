package io.kubewarden.networkenforcer.writer.status;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.KafkaTopics;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.telemetry.CollectorStrategy;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The processor writes violations in transactions (exactly_once_v2). One that aborts (a crash, a
 * fenced zombie) is done again by the next attempt: the writer must count the observations of the
 * committed attempt only, on the real API server's status and at the event exporter.
 */
class ApiServerAbortedTransactionTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PREFIX = "aborted.";
  private static final Topics TOPICS = new Topics(PREFIX);
  private static final String POLICY = "deployment-api-ingress";
  private static EmbeddedKafkaBroker broker;
  private static ChartedApiServer cluster;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster = ChartedApiServer.start(NS);
    KafkaTopics.create(broker.bootstrapServers(), TOPICS, 1);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void observationsOfAnAbortedTransactionAreCountedOnceWhenTheRetryCommits() throws Exception {
    KubernetesClient admin = cluster.admin();
    admin.resource(Fixtures.deployment("api")).create();
    admin.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    WriterConfig config =
        Fixtures.quickWriter(broker.bootstrapServers(), PREFIX, 1)
            .namespace(ChartedApiServer.RELEASE_NAMESPACE)
            .leaseName(ChartedApiServer.leaseName(ChartedApiServer.KUBERNETES))
            .leaseDuration(Duration.ofSeconds(4))
            .renewDeadline(Duration.ofSeconds(3))
            .build()
            .validate();
    InMemoryLogRecordExporter otel = InMemoryLogRecordExporter.create();
    Instant t = Instant.parse("2026-03-01T10:00:00Z");
    List<ViolationObservation> attempt =
        List.of(
            Fixtures.violation("api", "batch", 9090, t),
            Fixtures.violation("api", "cron", 9091, t),
            Fixtures.violation("api", "db", 5432, t));
    try (KubernetesClient client = cluster.writerClient(ChartedApiServer.KUBERNETES);
        WriterService writer =
            new WriterService(
                client,
                config,
                new ServerSideApplyWriter(client, config.fieldManager()),
                TelemetryExport.withExporter(otel, "memory", CollectorStrategy.external),
                new SimpleMeterRegistry(),
                Clock.systemUTC());
        KafkaProducer<String, byte[]> processor = transactionalProducer("processor-task-0_0")) {
      writer.start();
      await().atMost(WAIT).until(writer::isLeader);
      processor.initTransactions();

      // The first attempt reaches the log (flushed, so an uncommitted reader sees it) and aborts.
      processor.beginTransaction();
      attempt.forEach(o -> processor.send(violation(o)));
      processor.flush();
      processor.abortTransaction();
      // The redo commits the same observations.
      processor.beginTransaction();
      attempt.forEach(o -> processor.send(violation(o)));
      processor.commitTransaction();
      // A last record outside any transaction: once it is counted, everything before it was read.
      KafkaTopics.produce(
          broker.bootstrapServers(),
          TOPICS.violations(),
          NS + "/" + POLICY,
          Fixtures.violation("api", "late", 8080, t));

      await()
          .atMost(WAIT)
          .until(
              () -> {
                WorkloadNetworkPolicy p = policy(admin);
                return p.getStatus() != null
                    && p.getStatus().getViolations().stream()
                        .anyMatch(
                            v ->
                                v.getSource() != null
                                    && "late".equals(v.getSource().getOwnerName()));
              });
      assertThat(policy(admin).getStatus().getViolationCount()).isEqualTo(4);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(
                          otel.getFinishedLogRecordItems().stream()
                              .filter(r -> ViolationEvents.OBSERVED.equals(r.getEventName()))
                              .count())
                      .isEqualTo(4));
    }
  }

  private static ProducerRecord<String, byte[]> violation(ViolationObservation o) {
    String topic = TOPICS.violations().name();
    return new ProducerRecord<>(
        topic,
        NS + "/" + POLICY,
        TOPICS.violations().valueSerde().serializer().serialize(topic, o));
  }

  /** As the processor's exactly_once_v2 producer: idempotent, acks=all, one transactional id. */
  private static KafkaProducer<String, byte[]> transactionalProducer(String transactionalId) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  private static WorkloadNetworkPolicy policy(KubernetesClient c) {
    return c.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName(POLICY).get();
  }
}
