package io.kubewarden.networkenforcer.writer.status;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.KafkaTopics;
import io.kubewarden.networkenforcer.writer.MockCluster;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.telemetry.CollectorStrategy;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Violation records the writer cannot count (a policy with no name, a port that does not exist, an
 * observation count no processor sends) go to dead-letter with the reason, and the consumer carries
 * on: the good record after them reaches the status. An empty name once killed the consumer thread.
 */
class BadViolationRecordsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PREFIX = "bad.";
  private static final Topics TOPICS = new Topics(PREFIX);
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");
  private static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    KafkaTopics.create(broker.bootstrapServers(), TOPICS, 1);
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void uncountableRecordsAreDeadLetteredWithTheirReasonAndTheConsumerCarriesOn() throws Exception {
    String bootstrap = broker.bootstrapServers();
    WriterConfig config = Fixtures.quickWriter(bootstrap, PREFIX, 1).build().validate();
    ViolationObservation good = Fixtures.violation("api", "batch", 9090, T);
    List<ViolationObservation> bad =
        List.of(
            with(good, "", good.policyName(), good.dstPort(), 1),
            with(good, NS, "", good.dstPort(), 1),
            with(good, NS, good.policyName(), 70_000, 1),
            with(good, NS, good.policyName(), good.dstPort(), 1_000_000_000_000L),
            good.withHttp(new HttpRequest("GET", "/" + "a".repeat(5_000), false)),
            good.withHttp(new HttpRequest("GET /admin HTTP/1.1", "/admin", false)));
    try (MockCluster cluster = MockCluster.start();
        WriterService writer =
            new WriterService(
                cluster.client(),
                config,
                new MockClusterWriter(cluster.client()),
                TelemetryExport.withExporter(
                    InMemoryLogRecordExporter.create(), "memory", CollectorStrategy.external),
                new SimpleMeterRegistry(),
                Clock.systemUTC())) {
      KubernetesClient k8s = cluster.client();
      k8s.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
      writer.start();
      await().atMost(WAIT).until(writer::isLeader);

      for (ViolationObservation o : bad) {
        KafkaTopics.produce(bootstrap, TOPICS.violations(), o.policyKey(), o);
      }
      KafkaTopics.produce(bootstrap, TOPICS.violations(), good.policyKey(), good);

      await()
          .atMost(WAIT)
          .until(
              () -> {
                WorkloadNetworkPolicy p =
                    k8s.resources(WorkloadNetworkPolicy.class)
                        .inNamespace(NS)
                        .withName(good.policyName())
                        .get();
                return p.getStatus() != null && p.getStatus().getViolationCount() == 1;
              });
      await()
          .atMost(WAIT)
          .until(
              () ->
                  KafkaTopics.committed(
                          bootstrap, PREFIX + "writer-violations", TOPICS.violations().name())
                      == 7);
      List<ConsumerRecord<String, byte[]>> dead =
          KafkaTopics.readAll(bootstrap, TOPICS.deadLetter().name());
      assertThat(dead)
          .extracting(r -> DeadLetterHeaders.get(r.headers(), DeadLetterHeaders.REASON))
          .satisfiesExactly(
              r -> assertThat(r).contains("policyNamespace ''"),
              r -> assertThat(r).contains("policyName ''"),
              r -> assertThat(r).contains("dstPort 70000"),
              r -> assertThat(r).contains("observations 1000000000000"),
              r -> assertThat(r).contains("http path of 5001 characters"),
              r -> assertThat(r).contains("http method 'GET /admin HTTP/1.1'"));
      assertThat(writer.isLeader()).isTrue();
    }
  }

  private static ViolationObservation with(
      ViolationObservation o, String namespace, String name, int port, long observations) {
    return new ViolationObservation(
        namespace,
        name,
        o.timestamp(),
        o.source(),
        o.dest(),
        o.protocol(),
        port,
        o.action(),
        o.denyingPolicyNamespace(),
        o.denyingPolicyName(),
        o.provider(),
        o.backend(),
        o.direction(),
        o.count(),
        observations,
        o.http());
  }
}
