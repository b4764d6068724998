package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a restarted ingest resumes its provider stream: the flows topic itself keeps the point, no
 * state of our own. The newest flow time among the last records of each partition, less the
 * aggregation window and a margin (the window being published when the previous process died may
 * have reached some partitions only), is asked of Hubble Relay ({@code since}) and Goldmane ({@code
 * start_time_gte}); what their buffers still hold of the gap comes again, instead of the silent gap
 * a start "from now" left. The provider's records in the topic from that point on are read too
 * ({@link Resume#published()}): {@link AlreadyPublished} drops the resent flows they already count,
 * so the topic holds each flow once (re-publishing the margin doubled up to a window and ten
 * seconds of flows, a short capture all of it).
 */
public final class ResumePoint {
  private static final Logger LOG = LoggerFactory.getLogger(ResumePoint.class);

  /** Records read back per partition: the last ones may be of another provider or unreadable. */
  private static final int TAIL = 32;

  /** Added to the aggregation window: a flush takes time, the producer's linger too. */
  static final Duration MARGIN = Duration.ofSeconds(10);

  /**
   * Records read back per partition for what is already published: the resume span is found by
   * record timestamp (published after the flow); a replay of old flow times falls back to this
   * many.
   */
  static final int MAX_BACK = 20_000;

  /** Record timestamps are the producer's clock, flow times the data plane's: allow for skew. */
  static final Duration CLOCK_SKEW = Duration.ofMinutes(1);

  /**
   * Reads tried before giving up on a topic that times out or cannot be read to its end in time (a
   * broker still starting, a pod throttled while its other services restore their state). Giving up
   * early cost a silent gap (from now) or flows published twice (a span read in part); waiting is
   * cheap: the stream is not open, so ingest is not Ready meanwhile.
   */
  static final int ATTEMPTS = 4;

  /**
   * Where to resume and what the topic holds from there.
   *
   * @param since asked of the provider
   * @param published the provider's records last seen at or after {@code since}
   */
  public record Resume(Instant since, List<FlowRecord> published) {
    public Resume {
      published = List.copyOf(published);
    }
  }

  private ResumePoint() {}

  /**
   * Where to ask from; empty when the topic holds no flow of {@code provider} or cannot be read in
   * time.
   */
  public static Optional<Instant> of(
      KafkaSettings kafka, Provider provider, Duration aggregationWindow, Duration timeout) {
    return of(kafka, provider, null, aggregationWindow, timeout);
  }

  /**
   * @param writer only records of this {@link FlowPublisher#WRITER_HEADER} count (node-local
   *     ingest: another node's newer flows say nothing of where this node's stream stopped), or
   *     null for all. None among the tail (a busy cluster of many nodes) starts the stream from
   *     now, as a first start.
   */
  public static Optional<Instant> of(
      KafkaSettings kafka,
      Provider provider,
      String writer,
      Duration aggregationWindow,
      Duration timeout) {
    return withAttempts(
            kafka, last -> read(kafka, provider, writer, aggregationWindow, timeout, false, last))
        .map(Resume::since);
  }

  /** As {@link #of}, with the provider's records already in the topic from that point on. */
  public static Optional<Resume> resume(
      KafkaSettings kafka, Provider provider, Duration aggregationWindow, Duration timeout) {
    return resume(kafka, provider, null, aggregationWindow, timeout);
  }

  /**
   * As {@link #of(KafkaSettings, Provider, String, Duration, Duration)}, with the records already
   * published.
   */
  public static Optional<Resume> resume(
      KafkaSettings kafka,
      Provider provider,
      String writer,
      Duration aggregationWindow,
      Duration timeout) {
    return withAttempts(
        kafka, last -> read(kafka, provider, writer, aggregationWindow, timeout, true, last));
  }

  /** Reads until a read needs no retry or the last attempt is made ({@code read(lastAttempt)}). */
  private static Optional<Resume> withAttempts(
      KafkaSettings kafka, Function<Boolean, Optional<Resume>> read) {
    for (int attempt = 1; ; attempt++) {
      try {
        return read.apply(attempt == ATTEMPTS);
      } catch (TryAgain e) {
        LOG.warn(
            "cannot read where {} stops yet (attempt {} of {}): {}; trying again",
            kafka.topics().flows().name(),
            attempt,
            ATTEMPTS,
            e.getMessage());
      }
    }
  }

  /** A read that may work when tried again. */
  private static final class TryAgain extends RuntimeException {
    TryAgain(String message) {
      super(message, null, false, false);
    }
  }

  private static Optional<Resume> read(
      KafkaSettings kafka,
      Provider provider,
      String writer,
      Duration aggregationWindow,
      Duration timeout,
      boolean withPublished,
      boolean lastAttempt) {
    byte[] wanted = writer == null ? null : writer.getBytes(StandardCharsets.UTF_8);
    Topic<String, FlowRecord> topic = kafka.topics().flows();
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    try (KafkaConsumer<String, byte[]> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topic.name(), timeout).stream()
              .map(i -> new TopicPartition(topic.name(), i.partition()))
              .toList();
      c.assign(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, timeout);
      Map<TopicPartition, Long> begin = c.beginningOffsets(parts, timeout);
      Map<TopicPartition, Long> from = new HashMap<>();
      parts.forEach(tp -> from.put(tp, Math.max(begin.get(tp), end.get(tp) - TAIL)));
      Instant[] newest = {null};
      boolean tailRead =
          readRange(
              c,
              topic,
              wanted,
              from,
              end,
              System.nanoTime() + timeout.toNanos(),
              flow -> {
                if (flow.provider() == provider
                    && (newest[0] == null || flow.lastSeen().isAfter(newest[0]))) {
                  newest[0] = flow.lastSeen();
                }
              });
      if (!tailRead && !lastAttempt) {
        throw new TryAgain("the last records of " + topic.name() + " were not read in " + timeout);
      }
      if (newest[0] == null) {
        return Optional.empty();
      }
      Instant since = newest[0].minus(aggregationWindow).minus(MARGIN);
      if (!withPublished) {
        return Optional.of(new Resume(since, List.of()));
      }
      // The records of the span were published after its flows: find them by timestamp.
      Map<TopicPartition, Long> byTime = new HashMap<>();
      parts.forEach(tp -> byTime.put(tp, since.minus(CLOCK_SKEW).toEpochMilli()));
      Map<TopicPartition, OffsetAndTimestamp> at = c.offsetsForTimes(byTime, timeout);
      Map<TopicPartition, Long> spanFrom = new HashMap<>();
      for (TopicPartition tp : parts) {
        long start = at.get(tp) == null ? end.get(tp) : at.get(tp).offset();
        spanFrom.put(tp, Math.max(start, Math.max(begin.get(tp), end.get(tp) - MAX_BACK)));
      }
      List<FlowRecord> published = new ArrayList<>();
      boolean complete =
          readRange(
              c,
              topic,
              wanted,
              spanFrom,
              end,
              System.nanoTime() + timeout.toNanos(),
              flow -> {
                if (flow.provider() == provider && !flow.lastSeen().isBefore(since)) {
                  published.add(flow);
                }
              });
      if (!complete && !lastAttempt) {
        throw new TryAgain("the records from " + since + " on were not all read in " + timeout);
      }
      if (!complete) {
        LOG.warn(
            "could not read all of {} from {} in time: flows resent from there may be published twice",
            topic.name(),
            since);
      }
      LOG.info(
          "resuming {} from {}: {} records ({} flows) already in {} from there",
          provider,
          since,
          published.size(),
          published.stream().mapToLong(FlowRecord::count).sum(),
          topic.name());
      return Optional.of(new Resume(since, published));
    } catch (TryAgain e) {
      throw e;
    } catch (RuntimeException e) {
      if (e instanceof RetriableException && !lastAttempt) {
        throw new TryAgain(e.toString());
      }
      LOG.warn(
          "cannot read where the flows topic ends, the stream starts from now: {}", e.toString());
      return Optional.empty();
    }
  }

  /** Reads each partition from {@code from} to {@code end}; false when the deadline came first. */
  private static boolean readRange(
      KafkaConsumer<String, byte[]> c,
      Topic<String, FlowRecord> topic,
      byte[] writer,
      Map<TopicPartition, Long> from,
      Map<TopicPartition, Long> end,
      long deadline,
      Consumer<FlowRecord> each) {
    from.forEach(c::seek);
    while (from.keySet().stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
        if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))
            && (writer == null || writtenBy(r, writer))) {
          FlowRecord flow = read(topic, r);
          if (flow != null) {
            each.accept(flow);
          }
        }
      }
    }
    return true;
  }

  private static boolean writtenBy(ConsumerRecord<String, byte[]> r, byte[] writer) {
    Header h = r.headers().lastHeader(FlowPublisher.WRITER_HEADER);
    return h != null && Arrays.equals(h.value(), writer);
  }

  private static FlowRecord read(
      Topic<String, FlowRecord> topic, ConsumerRecord<String, byte[]> r) {
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
