package io.kubewarden.networkenforcer.cli.history;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The events the data plane reported lost during one {@link TimeWindow}, from the {@code
 * data-plane-loss} topic the ingest writes (one record per node and loss window). A record counts
 * when its loss window overlaps the replayed one. It is published once its loss window closed, so
 * every record that can overlap has a timestamp at or after the window's start: each partition is
 * read from {@code offsetsForTimes(from)} to the end seen at start.
 */
public final class WindowLossReader {
  private final KafkaSettings kafka;
  private final Topic<String, DataPlaneLoss> topic;

  /**
   * The loss of a window.
   *
   * @param lostEvents the sum over the overlapping loss records
   * @param nodes the nodes that lost them (as the data plane names them)
   * @param unreadableNodes the nodes the data plane could not read for a while (their loss is
   *     uncounted)
   * @param unreadable records of the topic that could not be decoded (skipped)
   */
  public record Loss(
      long lostEvents,
      SortedSet<String> nodes,
      SortedSet<String> unreadableNodes,
      long unreadable) {
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
    try (KafkaConsumer<String, byte[]> consumer = TopicRangeRead.consumer(kafka)) {
      var infos = consumer.partitionsFor(topic.name());
      if (infos == null || infos.isEmpty()) {
        return Optional.empty();
      }
      List<TopicPartition> partitions =
          infos.stream().map(i -> new TopicPartition(topic.name(), i.partition())).toList();
      consumer.assign(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      Map<TopicPartition, Long> start =
          TopicRangeRead.offsetsAt(consumer, partitions, window.from(), end);
      long[] lost = {0};
      long[] unreadable = {0};
      SortedSet<String> nodes = new TreeSet<>();
      SortedSet<String> unreadableNodes = new TreeSet<>();
      TopicRangeRead.read(
          consumer,
          partitions,
          start,
          end,
          "the loss topic " + topic.name(),
          r -> {
            if (r.value() == null) {
              return;
            }
            DataPlaneLoss loss;
            try {
              loss = topic.valueSerde().deserializer().deserialize(r.topic(), r.value());
            } catch (RuntimeException e) {
              unreadable[0]++;
              return;
            }
            boolean overlaps =
                loss.from().isBefore(window.to()) && !loss.to().isBefore(window.from());
            if (overlaps && (providers.isEmpty() || providers.contains(loss.provider()))) {
              String node =
                  loss.node() == null ? loss.provider() + " (node not named)" : loss.node();
              if (loss.lostEvents() > 0) {
                lost[0] += loss.lostEvents();
                nodes.add(node);
              }
              if (loss.unavailable()) {
                unreadableNodes.add(node);
              }
            }
          },
          done -> {});
      return Optional.of(new Loss(lost[0], nodes, unreadableNodes, unreadable[0]));
    }
  }
}
