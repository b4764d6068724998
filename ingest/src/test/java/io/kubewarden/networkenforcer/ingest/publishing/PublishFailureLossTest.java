package io.kubewarden.networkenforcer.ingest.publishing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
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
 * Flows Kafka did not take reach {@code data-plane-loss} (issue 34, goal 3), also when Kafka stays
 * away longer than the flows' delivery timeout: the record of their loss waits for Kafka's return
 * instead of failing the same way. The flows' timeouts are cut to seconds here, as {@code
 * --kafka-property} may set them, so the outage outlasts them in a short test.
 */
class PublishFailureLossTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Map<String, String> SHORT_TIMEOUTS =
      Map.of(
          "delivery.timeout.ms", "3000",
          "request.timeout.ms", "1000",
          "max.block.ms", "2000",
          "reconnect.backoff.max.ms", "500");

  @TempDir Path dir;

  @Test
  void flowsKafkaDidNotTakeAreALossRecordOnceKafkaIsBack() throws Exception {
    int port = LoopbackPorts.free();
    Path data = dir.resolve("broker");
    EmbeddedKafkaBroker broker = restartable(data, port).start();
    KafkaSettings kafka =
        new KafkaSettings(broker.bootstrapServers(), "loss.", 1, (short) 1, SHORT_TIMEOUTS);
    Topics topics = kafka.topics();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      admin
          .createTopics(
              List.of(
                  topics.flows().newTopic(1, (short) 1),
                  topics.dataPlaneLoss().newTopic(1, (short) 1)))
          .all()
          .get();
    }
    IngestMetrics metrics = new IngestMetrics(new SimpleMeterRegistry());
    Instant at = Instant.parse("2026-12-06T10:00:00Z");
    try (LossPublisher lossPublisher = new LossPublisher(kafka, metrics);
        LossWindows losses =
            new LossWindows(Provider.cilium, Duration.ofMillis(500), lossPublisher);
        FlowPublisher flows = new FlowPublisher(kafka, ProducerTuning.defaults(), metrics)) {
      flows.onLoss(losses);
      flows.accept(flow(1, at));
      await("the first flow acknowledged")
          .atMost(WAIT)
          .until(() -> counter(metrics, "network.enforcer.ingest.flows.published") == 1);

      broker.close();
      for (long count = 1; count <= 5; count++) {
        flows.accept(flow(count, at));
      }
      await("the flows given up after their 3 s delivery timeout")
          .atMost(WAIT)
          .until(() -> counter(metrics, "network.enforcer.ingest.publish.errors") == 5);
      // Kafka stays away longer than the flows' delivery timeout again: the loss record, sent
      // within a window of 500 ms, must not fail the same way.
      await("no loss record given up while Kafka is away")
          .during(Duration.ofSeconds(6))
          .atMost(Duration.ofSeconds(10))
          .until(() -> counter(metrics, "network.enforcer.ingest.publish.errors") == 5);

      broker = restartable(data, port).start();
      List<DataPlaneLoss> records = new ArrayList<>();
      KafkaSettings reader = kafka;
      await("the loss on the topic once Kafka is back")
          .atMost(WAIT)
          .until(
              () -> {
                records.clear();
                records.addAll(lossRecords(reader));
                return records.stream().mapToLong(DataPlaneLoss::lostEvents).sum() >= 15;
              });
      assertThat(records.stream().mapToLong(DataPlaneLoss::lostEvents).sum())
          .as("flows lost, by their counts 1 to 5")
          .isEqualTo(15);
      assertThat(records.stream().mapToLong(DataPlaneLoss::reports).sum())
          .as("records lost")
          .isEqualTo(5);
      assertThat(records)
          .allSatisfy(
              r -> {
                assertThat(r.provider()).isEqualTo(Provider.cilium);
                assertThat(r.node()).as("a publish failure is no node's").isNull();
                assertThat(r.from()).isEqualTo(at);
                assertThat(r.to()).isEqualTo(at);
              });
      assertThat(counter(metrics, "network.enforcer.ingest.publish.errors")).isEqualTo(5);
    } finally {
      broker.close();
    }
  }

  private static EmbeddedKafkaBroker restartable(Path data, int port) {
    return EmbeddedKafkaBroker.builder().dataDir(data).port(port).build();
  }

  /** A flow of the client to the server, {@code count} connections seen at {@code at}. */
  private static FlowRecord flow(long count, Instant at) {
    FlowEndpoint client =
        FlowEndpoint.builder()
            .namespace("demo")
            .workload(WorkloadKind.Deployment, "client")
            .podName("client-5d8f9c7b6-abcde")
            .build();
    FlowEndpoint server =
        FlowEndpoint.builder()
            .namespace("demo")
            .workload(WorkloadKind.Deployment, "server")
            .podName("server-5d8f9c7b6-abcde")
            .build();
    return new FlowRecord(
        at,
        Provider.cilium,
        Protocol.TCP,
        8080,
        client,
        server,
        Verdict.FORWARDED,
        null,
        count,
        Reporter.SOURCE);
  }

  private static long counter(IngestMetrics metrics, String name) {
    return (long)
        metrics.registry().find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private static List<DataPlaneLoss> lossRecords(KafkaSettings kafka) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    String topic = kafka.topics().dataPlaneLoss().name();
    List<DataPlaneLoss> out = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (c.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          out.add(
              kafka
                  .topics()
                  .dataPlaneLoss()
                  .valueSerde()
                  .deserializer()
                  .deserialize(topic, r.value()));
        }
      }
    }
    return out;
  }
}
