package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a restarted ingest resumes its provider stream: the flows topic itself keeps the point, no
 * state of our own. The newest flow time among the last records of each partition, less the
 * aggregation window and a margin (the window being published when the previous process died may
 * have reached some partitions only), is asked of Hubble Relay ({@code since}) and Goldmane
 * ({@code start_time_gte}); what their buffers still hold of the gap is published again (at least
 * once), instead of the silent gap a start "from now" left.
 */
public final class ResumePoint {
  private static final Logger LOG = LoggerFactory.getLogger(ResumePoint.class);
  /** Records read back per partition: the last ones may be of another provider or unreadable. */
  private static final int TAIL = 32;
  /** Added to the aggregation window: a flush takes time, the producer's linger too. */
  static final Duration MARGIN = Duration.ofSeconds(10);

  private ResumePoint() {}

  /** Empty when the topic holds no flow of {@code provider} (a first start) or cannot be read in time. */
  public static Optional<Instant> of(KafkaSettings kafka, Provider provider, Duration aggregationWindow,
      Duration timeout) {
    return of(kafka, provider, null, aggregationWindow, timeout);
  }

  /**
   * @param writer only records of this {@link FlowPublisher#WRITER_HEADER} count (node-local ingest:
   *     another node's newer flows say nothing of where this node's stream stopped), or null for all.
   *     None among the tail (a busy cluster of many nodes) starts the stream from now, as a first start.
   */
  public static Optional<Instant> of(KafkaSettings kafka, Provider provider, String writer,
      Duration aggregationWindow, Duration timeout) {
    byte[] wanted = writer == null ? null : writer.getBytes(StandardCharsets.UTF_8);
    Topic<String, FlowRecord> topic = kafka.topics().flows();
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    Instant newest = null;
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> parts = c.partitionsFor(topic.name(), timeout).stream()
          .map(i -> new TopicPartition(topic.name(), i.partition())).toList();
      c.assign(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, timeout);
      Map<TopicPartition, Long> begin = c.beginningOffsets(parts, timeout);
      for (TopicPartition tp : parts) {
        c.seek(tp, Math.max(begin.get(tp), end.get(tp) - TAIL));
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (wanted != null && !writtenBy(r, wanted)) {
            continue;
          }
          FlowRecord flow = read(topic, r);
          if (flow != null && flow.provider() == provider && (newest == null || flow.lastSeen().isAfter(newest))) {
            newest = flow.lastSeen();
          }
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("cannot read where the flows topic ends, the stream starts from now: {}", e.toString());
      return Optional.empty();
    }
    return Optional.ofNullable(newest).map(t -> t.minus(aggregationWindow).minus(MARGIN));
  }

  private static boolean writtenBy(ConsumerRecord<String, byte[]> r, byte[] writer) {
    Header h = r.headers().lastHeader(FlowPublisher.WRITER_HEADER);
    return h != null && Arrays.equals(h.value(), writer);
  }

  private static FlowRecord read(Topic<String, FlowRecord> topic, ConsumerRecord<String, byte[]> r) {
    if (r.value() == null) {
      return null;
    }
    try {
      return topic.valueSerde().deserializer().deserialize(r.topic(), r.value());
    } catch (RuntimeException e) {
      return null; // the processor dead-letters it; here it only says nothing about time
    }
  }
}
