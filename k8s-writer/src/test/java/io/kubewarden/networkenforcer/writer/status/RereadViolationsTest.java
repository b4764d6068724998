package io.kubewarden.networkenforcer.writer.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.policy.Mode;
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
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A partition the leader's violation consumer loses before the status holds its records (a broker
 * hung past the session timeout, a rebalance) is read again from its committed offset. The records
 * are merged once, and their events were sent already: the same writer must not send them again
 * (CrashFaultTest once received one event id twice, both from one writer, after a 12 s broker
 * hang).
 */
class RereadViolationsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PREFIX = "reread.";
  private static final Topics TOPICS = new Topics(PREFIX);
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");
  private static final int PER_PARTITION = 3;

  @Test
  void recordsReadAgainAfterARebalanceSendNoSecondEvent() throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault()) {
      String bootstrap = broker.bootstrapServers();
      KafkaTopics.create(bootstrap, TOPICS, 2);
      WriterConfig config =
          Fixtures.quickWriter(bootstrap, PREFIX, 2)
              // No status write during the test: nothing is committed, so what is lost is read
              // again from the start.
              .statusUpdateInterval(Duration.ofHours(1))
              .build()
              .validate();
      InMemoryLogRecordExporter exporter = InMemoryLogRecordExporter.create();
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (MockCluster cluster = MockCluster.start();
          WriterService writer =
              new WriterService(
                  cluster.client(),
                  config,
                  new MockClusterWriter(cluster.client()),
                  TelemetryExport.withExporter(exporter, "memory", CollectorStrategy.external),
                  meters,
                  Clock.systemUTC())) {
        cluster.client().resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
        writer.start();
        await().atMost(WAIT).until(writer::isLeader);

        produceToBothPartitions(bootstrap);
        int sent = 2 * PER_PARTITION;
        await().atMost(WAIT).until(() -> consumed(meters) == sent);
        await().atMost(WAIT).until(() -> exporter.getFinishedLogRecordItems().size() == sent);

        // A second member of the writer's violations group takes partitions away and gives them
        // back when it leaves: the writer reads them again from the start.
        try (KafkaConsumer<String, byte[]> other =
            new KafkaConsumer<>(
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "group.id",
                    PREFIX + "writer-violations",
                    "enable.auto.commit",
                    "false"),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
          other.subscribe(List.of(TOPICS.violations().name()));
          await()
              .atMost(WAIT)
              .until(
                  () -> {
                    other.poll(Duration.ofMillis(100));
                    return !other.assignment().isEmpty();
                  });
        }
        // At least one partition's three records come back.
        await().atMost(WAIT).until(() -> consumed(meters) >= sent + PER_PARTITION);

        // Anything sent again would have been exported within the batch interval (1 s).
        Thread.sleep(2_000);
        assertThat(
                exporter.getFinishedLogRecordItems().stream()
                    .map(
                        r ->
                            r.getAttributes().get(AttributeKey.stringKey(ViolationEvents.EVENT_ID)))
                    .toList())
            .as("one event per record, however often it was read")
            .hasSize(sent)
            .doesNotHaveDuplicates();
        assertThat(reread(meters)).as("counted as read again").isEqualTo(consumed(meters) - sent);
      }
    }
  }

  /** Three violations to each partition of the violations topic, keyed by their policy. */
  private static void produceToBothPartitions(String bootstrap) {
    var serializer = TOPICS.violations().valueSerde().serializer();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (int partition = 0; partition < 2; partition++) {
        for (int i = 0; i < PER_PARTITION; i++) {
          ViolationObservation o =
              Fixtures.violation("api", "batch", 9000 + 10 * partition + i, T.plusSeconds(i));
          producer.send(
              new ProducerRecord<>(
                  TOPICS.violations().name(),
                  partition,
                  o.policyKey(),
                  serializer.serialize(TOPICS.violations().name(), o)));
        }
      }
      producer.flush();
    }
  }

  private static long consumed(SimpleMeterRegistry meters) {
    return (long) meters.counter("network.enforcer.writer.violations.consumed").count();
  }

  private static long reread(SimpleMeterRegistry meters) {
    return (long) meters.counter("network.enforcer.writer.violations.reread").count();
  }
}
