package io.kubewarden.networkenforcer.common.topics;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The first records produced right after {@link MissingTopics#create} arrive, all of them: once the
 * bench lost 1,257 of 50,000 flows there (not leader, then out-of-order sequence, until the
 * delivery timeout). Each round creates fresh topics and produces at once, as ingest's first
 * publish does: an idempotent producer, many small batches in flight on several partitions.
 */
class FirstRecordsAfterCreationTest {
  private static final int ROUNDS = 20;
  private static final int PARTITIONS = 4;
  private static final int RECORDS = 2_000;
  private static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void start() {
    broker = EmbeddedKafkaBroker.startDefault();
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @Test
  void everyRecordProducedRightAfterTopicCreationArrivesExactlyOnce() throws Exception {
    createAndProduceAtOnce(broker.bootstrapServers(), "first", (short) 1, ROUNDS);
  }

  /**
   * The same on three brokers with three replicas and {@code min.insync.replicas} 2, as production
   * runs: an acknowledgement waits for a follower too, and the leaders are spread over the nodes.
   */
  @Test
  void everyRecordArrivesOnThreeBrokersWithThreeReplicas() throws Exception {
    try (EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.start(3, Map.of())) {
      createAndProduceAtOnce(cluster.bootstrapServers(), "replicated", (short) 3, ROUNDS / 2);
    }
  }

  private static void createAndProduceAtOnce(
      String bootstrap, String prefix, short replication, int rounds) throws Exception {
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      for (int round = 0; round < rounds; round++) {
        Topics topics = new Topics(prefix + round + ".");
        List<NewTopic> wanted =
            List.of(
                topics.flows().newTopic(PARTITIONS, replication),
                topics.violations().newTopic(PARTITIONS, replication));
        MissingTopics.create(admin, wanted, Duration.ofSeconds(30), bootstrap);
        String topic = topics.flows().name();
        AtomicInteger acked = new AtomicInteger();
        try (KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
          for (int i = 0; i < RECORDS; i++) {
            producer.send(
                new ProducerRecord<>(topic, "key-" + i, new byte[200]),
                (m, e) -> {
                  if (e == null) {
                    acked.incrementAndGet();
                  } else {
                    failures.add(topic + ": " + e);
                  }
                });
          }
          producer.flush();
        }
        assertThat(failures).as("round %d", round).isEmpty();
        assertThat(acked.get()).as("round %d acknowledged", round).isEqualTo(RECORDS);
        assertThat(count(bootstrap, topic)).as("round %d on the topic", round).isEqualTo(RECORDS);
      }
    }
  }

  /**
   * As the product's producers write ({@link IdempotentWrites}), with lz4 and small batches so that
   * many wait behind each request.
   */
  private static KafkaProducer<String, byte[]> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    IdempotentWrites.apply(p);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "4096");
    return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  private static long count(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        parts.add(new TopicPartition(topic, i));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long n = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
          && System.nanoTime() < deadline) {
        n += c.poll(Duration.ofMillis(100)).count();
      }
      return n;
    }
  }
}
