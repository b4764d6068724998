package io.kubewarden.networkenforcer.cli.history;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The events the data plane reported lost during one {@link TimeWindow}, from the
 * {@code data-plane-loss} topic the ingest writes (one record per node and loss window). A record
 * counts when its loss window overlaps the replayed one. It is published once its loss window
 * closed, so every record that can overlap has a timestamp at or after the window's start: each
 * partition is read from {@code offsetsForTimes(from)} to the end seen at start.
 */
public final class WindowLossReader {
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration NO_PROGRESS_LIMIT = Duration.ofMinutes(2);

  private final KafkaSettings kafka;
  private final Topic<String, DataPlaneLoss> topic;

  /**
   * The loss of a window.
   *
   * @param lostEvents the sum over the overlapping loss records
   * @param nodes the nodes that lost them (as the data plane names them)
   * @param unreadableNodes the nodes the data plane could not read for a while (their loss is uncounted)
   * @param unreadable records of the topic that could not be decoded (skipped)
   */
  public record Loss(long lostEvents, SortedSet<String> nodes, SortedSet<String> unreadableNodes, long unreadable) {
    public static final Loss NONE = new Loss(0, new TreeSet<>(), new TreeSet<>(), 0);

    /** Whether flows of the window were missed. */
    public boolean any() {
      return lostEvents > 0 || !unreadableNodes.isEmpty();
    }
  }

  public WindowLossReader(KafkaSettings kafka) {
    this.kafka = kafka;
    this.topic = kafka.topics().dataPlaneLoss();
  }

  /**
   * The loss of these providers' data planes in the window (every provider when the set is empty);
   * empty when the installation has no loss topic (an ingest older than the topic).
   */
  public Optional<Loss> read(TimeWindow window, Set<Provider> providers) {
    Map<String, Object> config = new HashMap<>();
    kafka.clientConfig().forEach((k, v) -> config.put(k.toString(), v));
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
        new ByteArrayDeserializer())) {
      var infos = consumer.partitionsFor(topic.name());
      if (infos == null || infos.isEmpty()) {
        return Optional.empty();
      }
      List<TopicPartition> partitions = infos.stream().map(i -> new TopicPartition(topic.name(), i.partition()))
          .toList();
      consumer.assign(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      Map<TopicPartition, Long> query = new HashMap<>();
      partitions.forEach(tp -> query.put(tp, window.from().toEpochMilli()));
      Map<TopicPartition, OffsetAndTimestamp> start = consumer.offsetsForTimes(query);
      for (TopicPartition tp : partitions) {
        OffsetAndTimestamp o = start.get(tp);
        consumer.seek(tp, o == null ? end.get(tp) : o.offset());
      }
      long lost = 0;
      long unreadable = 0;
      SortedSet<String> nodes = new TreeSet<>();
      SortedSet<String> unreadableNodes = new TreeSet<>();
      long lastProgress = System.nanoTime();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        boolean any = false;
        for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
          any = true;
          if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition())) || r.value() == null) {
            continue;
          }
          DataPlaneLoss loss;
          try {
            loss = topic.valueSerde().deserializer().deserialize(r.topic(), r.value());
          } catch (RuntimeException e) {
            unreadable++;
            continue;
          }
          boolean overlaps = loss.from().isBefore(window.to()) && !loss.to().isBefore(window.from());
          if (overlaps && (providers.isEmpty() || providers.contains(loss.provider()))) {
            String node = loss.node() == null ? loss.provider() + " (node not named)" : loss.node();
            if (loss.lostEvents() > 0) {
              lost += loss.lostEvents();
              nodes.add(node);
            }
            if (loss.unavailable()) {
              unreadableNodes.add(node);
            }
          }
        }
        if (any) {
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > NO_PROGRESS_LIMIT.toNanos()) {
          throw new IllegalStateException("reading the loss topic " + topic.name() + " made no progress for "
              + NO_PROGRESS_LIMIT.toMinutes() + " minutes; check the Kafka connection");
        }
      }
      return Optional.of(new Loss(lost, nodes, unreadableNodes, unreadable));
    }
  }
}
