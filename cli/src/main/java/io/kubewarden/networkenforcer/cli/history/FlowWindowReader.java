package io.kubewarden.networkenforcer.cli.history;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads the flows of one {@link TimeWindow} from the flows topic, decoded with the topic's own
 * serde. Each partition is read from {@code offsetsForTimes(from)} up to the first offset at or
 * after {@code to}, or the end offset seen at start, whichever comes first, so a reader never
 * chases live traffic. A window the topic no longer holds (retention deleted its start) is refused
 * with the oldest time still available.
 */
public final class FlowWindowReader {
  private final KafkaSettings kafka;
  private final Topic<String, FlowRecord> topic;

  /** Where the flows of the window go, with their key and record timestamp. */
  @FunctionalInterface
  public interface WindowSink {
    void accept(String key, FlowRecord flow, long timestampMs);
  }

  /**
   * Where the flows of the window go, decoded and also as the topic holds them (to pass on
   * unchanged).
   */
  @FunctionalInterface
  public interface RecordSink {
    void accept(String key, byte[] value, FlowRecord flow, long timestampMs);
  }

  /**
   * What a read did.
   *
   * @param records records read between the start and stop offsets
   * @param inWindow flows handed to the sink
   * @param unreadable records the topic's serde could not decode (skipped; the processor sends them
   *     to dead-letter)
   */
  public record Summary(long records, long inWindow, long unreadable) {}

  public FlowWindowReader(KafkaSettings kafka) {
    this.kafka = kafka;
    this.topic = kafka.topics().flows();
  }

  public Summary read(TimeWindow window, WindowSink sink, HistoryProgress progress) {
    return read(
        window,
        (RecordSink) (key, value, flow, timestamp) -> sink.accept(key, flow, timestamp),
        progress);
  }

  public Summary read(TimeWindow window, RecordSink sink, HistoryProgress progress) {
    Deserializer<FlowRecord> decoder = topic.valueSerde().deserializer();
    try (KafkaConsumer<String, byte[]> consumer = TopicRangeRead.consumer(kafka)) {
      List<TopicPartition> partitions = partitions(consumer);
      consumer.assign(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      checkRetention(consumer, partitions, window);
      Map<TopicPartition, Long> start =
          TopicRangeRead.offsetsAt(consumer, partitions, window.from(), end);
      Map<TopicPartition, Long> stop =
          TopicRangeRead.offsetsAt(consumer, partitions, window.to(), end);
      long total = 0;
      for (TopicPartition tp : partitions) {
        stop.put(tp, Math.max(start.get(tp), stop.get(tp)));
        total += stop.get(tp) - start.get(tp);
      }
      progress.start(total);
      long[] inWindow = {0};
      long[] unreadable = {0};
      long records =
          TopicRangeRead.read(
              consumer,
              partitions,
              start,
              stop,
              "the flows topic " + topic.name(),
              r -> {
                if (r.value() == null || !window.contains(r.timestamp())) {
                  return;
                }
                FlowRecord flow;
                try {
                  flow = decoder.deserialize(r.topic(), r.headers(), r.value());
                } catch (RuntimeException e) {
                  unreadable[0]++;
                  return;
                }
                if (flow == null) {
                  unreadable[0]++;
                  return;
                }
                inWindow[0]++;
                sink.accept(r.key(), r.value(), flow, r.timestamp());
              },
              progress::update);
      progress.finish(records);
      return new Summary(records, inWindow[0], unreadable[0]);
    }
  }

  private List<TopicPartition> partitions(KafkaConsumer<String, byte[]> consumer) {
    var infos = consumer.partitionsFor(topic.name());
    if (infos == null || infos.isEmpty()) {
      throw new ConfigException(
          "the flows topic "
              + topic.name()
              + " does not exist on "
              + kafka.bootstrapServers()
              + "; check --kafka-bootstrap-servers and --kafka-topic-prefix");
    }
    return infos.stream().map(i -> new TopicPartition(topic.name(), i.partition())).toList();
  }

  /**
   * Refuses a window whose start retention has already deleted: some partition lost records (its
   * log starts after offset 0) and the oldest record still held is younger than {@code from}.
   */
  private void checkRetention(
      KafkaConsumer<String, byte[]> consumer, List<TopicPartition> partitions, TimeWindow window) {
    Map<TopicPartition, Long> beginning = consumer.beginningOffsets(partitions);
    boolean truncated = beginning.values().stream().anyMatch(o -> o > 0);
    if (!truncated) {
      return;
    }
    Map<TopicPartition, Long> query = new HashMap<>();
    partitions.forEach(tp -> query.put(tp, 0L));
    Optional<Instant> oldest =
        consumer.offsetsForTimes(query).values().stream()
            .filter(o -> o != null)
            .map(o -> Instant.ofEpochMilli(o.timestamp()))
            .min(Instant::compareTo);
    if (oldest.isPresent() && !oldest.get().isAfter(window.from())) {
      return;
    }
    String retention =
        retention()
            .map(ms -> " (retention.ms " + ms + ", " + Duration.ofMillis(ms).toHours() + " h)")
            .orElse("");
    throw new ConfigException(
        oldest
                .map(
                    o ->
                        "the flows topic "
                            + topic.name()
                            + " no longer holds "
                            + window.from()
                            + ": its oldest flow is from "
                            + o
                            + retention
                            + ". Use --from "
                            + o
                            + " or later")
                .orElse("the flows topic " + topic.name() + " holds no flows any more" + retention)
            + "; to keep a longer history raise the topic's retention.ms (--kafka-flows-retention-ms, chart value "
            + "kafka.flowsRetentionMs)");
  }

  private Optional<Long> retention() {
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic.name());
      Config config =
          admin.describeConfigs(List.of(resource)).all().get(10, TimeUnit.SECONDS).get(resource);
      ConfigEntry entry = config == null ? null : config.get(TopicConfig.RETENTION_MS_CONFIG);
      return entry == null || entry.value() == null
          ? Optional.empty()
          : Optional.of(Long.parseLong(entry.value()));
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return Optional.empty(); // the message is still useful without it
    }
  }
}
