package io.kubewarden.networkenforcer.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Three nodes, one stopped and started again: transactions, groups and acknowledged writes go on
 * while it is away, and it rejoins every partition's replicas on its log.
 */
class EmbeddedKafkaClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void oneNodeAwayLosesNothingAndRejoinsEveryPartition() throws Exception {
    try (EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.start(3, Map.of());
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
      assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(3);
      admin
          .createTopics(
              List.of(new NewTopic("t", 4, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get(30, TimeUnit.SECONDS);
      produce(cluster, "tx-1", 0, 100);
      cluster.stopNode(0);
      produce(cluster, "tx-2", 100, 200);
      assertThat(read(cluster, "g", 200)).hasSize(200);

      cluster.startNode(0);
      long deadline = System.nanoTime() + WAIT.toNanos();
      int inSync = 0;
      while (inSync != 4 * 3 && System.nanoTime() < deadline) {
        TopicDescription t = admin.describeTopics(List.of("t")).allTopicNames().get().get("t");
        inSync = t.partitions().stream().mapToInt(p -> p.isr().size()).sum();
        Thread.sleep(200);
      }
      assertThat(inSync).as("replicas in sync, 4 partitions of 3").isEqualTo(12);
      TopicDescription t = admin.describeTopics(List.of("t")).allTopicNames().get().get("t");
      assertThat(t.partitions())
          .extracting(TopicPartitionInfo::replicas)
          .allMatch(r -> r.size() == 3);
    }
  }

  @Test
  void refusesFewerThanThreeNodes() {
    assertThatThrownBy(() -> EmbeddedKafkaCluster.start(2, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a cluster has at least 3 nodes, got 2");
  }

  /** Values {@code from} to {@code to - 1} in one transaction, acknowledged by all in sync. */
  private static void produce(EmbeddedKafkaCluster cluster, String txId, int from, int to) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txId);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = from; i < to; i++) {
        producer.send(new ProducerRecord<>("t", "k" + i, Integer.toString(i)));
      }
      producer.commitTransaction();
    }
  }

  /** Distinct values read by a new group, once {@code count} are in or the wait is over. */
  private static Set<Integer> read(EmbeddedKafkaCluster cluster, String group, int count) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<Integer> values = new ArrayList<>();
    try (var consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of("t"));
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (values.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(Integer.parseInt(r.value()));
        }
      }
      consumer.commitSync();
    }
    assertThat(values).as("no value read twice").doesNotHaveDuplicates();
    Set<Integer> distinct = new TreeSet<>(values);
    return distinct;
  }
}
