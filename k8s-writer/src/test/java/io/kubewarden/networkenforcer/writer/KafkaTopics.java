package io.kubewarden.networkenforcer.writer;

import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Test-side Kafka: create the topics, produce to them, read them back from the start. */
public final class KafkaTopics {
  private KafkaTopics() {}

  public static void create(String bootstrap, Topics topics, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin
          .createTopics(topics.all().stream().map(t -> t.newTopic(partitions, (short) 1)).toList())
          .all()
          .get();
    }
  }

  public static <V> void produce(String bootstrap, Topic<String, V> topic, String key, V value)
      throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    // As the processor's producer: lz4, and records of a target with thousands of peers over 1 MiB.
    p.put("compression.type", "lz4");
    p.put("max.request.size", Integer.toString(16 * 1024 * 1024));
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      producer
          .send(
              new ProducerRecord<>(
                  topic.name(),
                  key,
                  topic.valueSerde().serializer().serialize(topic.name(), value)))
          .get();
    }
  }

  public static void produceRaw(String bootstrap, String topic, String key, byte[] value)
      throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    }
  }

  /** Every record of the topic so far (values raw; null = tombstone). */
  public static List<ConsumerRecord<String, byte[]>> readAll(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
    try (var c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
          && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(100)).forEach(out::add);
      }
    }
    return out;
  }

  /** The committed offset of a group on partition 0 of a topic, -1 when none. */
  public static long committed(String bootstrap, String group, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      var offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      var o = offsets.get(new TopicPartition(topic, 0));
      return o == null ? -1 : o.offset();
    }
  }
}
