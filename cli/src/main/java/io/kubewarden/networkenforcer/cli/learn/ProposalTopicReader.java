package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a compacted proposals topic from the start to its current end: the latest snapshot per
 * target.
 */
public final class ProposalTopicReader {
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration MAX_READ = Duration.ofMinutes(2);

  private final KafkaSettings kafka;

  public ProposalTopicReader(KafkaSettings kafka) {
    this.kafka = kafka;
  }

  /** Target key -> latest snapshot; a tombstone removes the target. */
  public Map<String, ProposalSnapshot> readAll(Topic<String, ProposalSnapshot> topic) {
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, ProposalSnapshot> latest = new TreeMap<>();
    try (KafkaConsumer<String, ProposalSnapshot> consumer =
        new KafkaConsumer<>(
            p, topic.keySerde().deserializer(), topic.valueSerde().deserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic.name()).stream()
              .map(info -> new TopicPartition(topic.name(), info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + MAX_READ.toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "could not read the proposals topic to its end within " + MAX_READ);
        }
        for (ConsumerRecord<String, ProposalSnapshot> r : consumer.poll(POLL)) {
          if (r.value() == null) {
            latest.remove(r.key());
          } else {
            latest.put(r.key(), r.value());
          }
        }
      }
    }
    return latest;
  }
}
