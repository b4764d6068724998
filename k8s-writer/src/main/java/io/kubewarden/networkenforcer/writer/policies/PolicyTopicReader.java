package io.kubewarden.networkenforcer.writer.policies;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads the compacted policies topic to its end: the targets it currently holds a policy for. */
public final class PolicyTopicReader {
  private PolicyTopicReader() {}

  public static Set<String> liveKeys(Properties clientConfig, String topic, Duration timeout)
      throws TimeoutException {
    Properties p = new Properties();
    p.putAll(clientConfig);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    // Only what was committed: the end offset is then the last stable offset, reached by position.
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, Boolean> latest = new HashMap<>();
    try (KafkaConsumer<String, byte[]> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topic, timeout).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException(
              "reading " + topic + " to its end took longer than " + timeout);
        }
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (r.key() != null) {
            latest.put(r.key(), r.value() != null);
          }
        }
      }
    }
    Set<String> keys = new HashSet<>();
    latest.forEach(
        (k, present) -> {
          if (present) {
            keys.add(k);
          }
        });
    return keys;
  }
}
