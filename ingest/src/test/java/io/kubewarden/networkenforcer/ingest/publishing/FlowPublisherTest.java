package io.kubewarden.networkenforcer.ingest.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.FlowRecordCodec;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flows and dead letters through a real (embedded KRaft) broker. */
class FlowPublisherTest {
  private static EmbeddedKafkaBroker broker;
  private static KafkaSettings kafka;
  private static Topics topics;

  @TempDir Path dir;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    kafka = new KafkaSettings(broker.bootstrapServers(), "test.", 3, (short) 1, Map.of());
    topics = kafka.topics();
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin
          .createTopics(
              List.of(
                  topics.flows().newTopic(3, (short) 1),
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
  void producerIsIdempotentCompressedAndBatched() {
    Properties p =
        FlowPublisher.producerConfig(
            kafka, new ProducerTuning("zstd", Duration.ofMillis(50), 32768));
    assertThat(p)
        .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true")
        .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
        .containsEntry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd")
        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, "50")
        .containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, "32768");
  }

  @Test
  void fixtureFlowsArriveKeyedBySourceWorkloadAndGarbageReachesTheDeadLetterTopic()
      throws Exception {
    Path capture = dir.resolve("mixed.jsonl");
    List<String> lines = new ArrayList<>(Files.readAllLines(Fixtures.file("goldmane-flows.jsonl")));
    lines.add(3, "{\"truncated\": ");
    Files.write(capture, lines);

    IngestMetrics metrics = new IngestMetrics(new SimpleMeterRegistry());
    List<FlowRecord> expected = new ArrayList<>();
    try (FlowPublisher flows = new FlowPublisher(kafka, ProducerTuning.defaults(), metrics);
        DeadLetterPublisher deadLetters = new DeadLetterPublisher(kafka, metrics)) {
      new CaptureFile(
              Fixtures.clusterState(), "cluster.local", deadLetters, metrics, Clock.systemUTC())
          .read(
              capture,
              Optional.empty(),
              r -> {
                expected.add(r);
                flows.accept(r);
              });
      flows.flush();
      deadLetters.flush();
    }
    // Three pod-to-pod connections and the call to the public network.
    assertThat(expected).hasSize(4);

    List<ConsumerRecord<String, byte[]>> got =
        consume(topics.flows().name(), new StringDeserializer(), 4);
    assertThat(got).allSatisfy(r -> assertThat(r.key()).isEqualTo("demo/Deployment/http-client"));
    // One key, so one partition and the publish order.
    assertThat(got).extracting(ConsumerRecord::partition).containsOnly(got.get(0).partition());
    assertThat(got)
        .extracting(
            r -> topics.flows().valueSerde().deserializer().deserialize(r.topic(), r.value()))
        .containsExactlyElementsOf(expected.stream().map(FlowRecordCodec::carried).toList());

    List<ConsumerRecord<byte[], byte[]>> dead =
        consume(topics.deadLetter().name(), new ByteArrayDeserializer(), 1);
    assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8))
        .isEqualTo("{\"truncated\": ");
    assertThat(DeadLetterHeaders.get(dead.get(0).headers(), DeadLetterHeaders.SOURCE))
        .isEqualTo("ingest/goldmane");
    assertThat(DeadLetterHeaders.get(dead.get(0).headers(), DeadLetterHeaders.REASON))
        .isEqualTo("line 4: not JSON");
    assertThat(metrics.registry().get("network.enforcer.ingest.flows.published").counter().count())
        .isEqualTo(4);
  }

  private static <K> List<ConsumerRecord<K, byte[]>> consume(
      String topic, Deserializer<K> keys, int count) {
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<K, byte[]>> result = new ArrayList<>();
    try (KafkaConsumer<K, byte[]> consumer =
        new KafkaConsumer<>(p, keys, new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (result.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(result::add);
      }
    }
    assertThat(result).as("records on %s", topic).hasSize(count);
    return result;
  }
}
