package io.kubewarden.networkenforcer.cli.history;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The part every history reader shares: a consumer outside any group that reads committed records
 * only, the offsets of a point in time, and a read of each partition between two offsets fixed at
 * the start, so a reader never chases live traffic.
 */
final class TopicRangeRead {
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration NO_PROGRESS_LIMIT = Duration.ofMinutes(2);

  private TopicRangeRead() {}

  /**
   * A consumer that commits nothing and reads committed records only; the caller assigns and closes
   * it.
   */
  static KafkaConsumer<String, byte[]> consumer(KafkaSettings kafka) {
    Properties p = kafka.clientConfig();
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    return new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * Per partition: the first offset whose timestamp is at or after {@code time}, else the end seen
   * at start.
   */
  static Map<TopicPartition, Long> offsetsAt(
      KafkaConsumer<String, byte[]> consumer,
      List<TopicPartition> partitions,
      Instant time,
      Map<TopicPartition, Long> end) {
    Map<TopicPartition, Long> query = new HashMap<>();
    partitions.forEach(tp -> query.put(tp, time.toEpochMilli()));
    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query);
    Map<TopicPartition, Long> out = new HashMap<>();
    for (TopicPartition tp : partitions) {
      OffsetAndTimestamp o = found.get(tp);
      out.put(tp, o == null ? end.get(tp) : Math.min(o.offset(), end.get(tp)));
    }
    return out;
  }

  /**
   * Reads each assigned partition from {@code start} up to {@code stop} (exclusive) and hands every
   * record to {@code sink}; {@code progress} gets the count read so far after every poll. Returns
   * the count.
   *
   * @param what the topic as the error names it ({@code the flows topic x})
   */
  static long read(
      KafkaConsumer<String, byte[]> consumer,
      List<TopicPartition> partitions,
      Map<TopicPartition, Long> start,
      Map<TopicPartition, Long> stop,
      String what,
      Consumer<ConsumerRecord<String, byte[]>> sink,
      LongConsumer progress) {
    List<TopicPartition> open = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      consumer.seek(tp, start.get(tp));
      if (start.get(tp) < stop.get(tp)) {
        open.add(tp);
      }
    }
    consumer.pause(partitions);
    consumer.resume(open);
    long records = 0;
    long lastProgress = System.nanoTime();
    while (!open.isEmpty()) {
      boolean any = false;
      for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
        if (r.offset() >= stop.get(new TopicPartition(r.topic(), r.partition()))) {
          continue;
        }
        any = true;
        records++;
        sink.accept(r);
      }
      for (var it = open.iterator(); it.hasNext(); ) {
        TopicPartition tp = it.next();
        if (consumer.position(tp) >= stop.get(tp)) {
          consumer.pause(List.of(tp));
          it.remove();
        }
      }
      progress.accept(records);
      if (any) {
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > NO_PROGRESS_LIMIT.toNanos()) {
        throw new IllegalStateException(
            "reading "
                + what
                + " made no progress for "
                + NO_PROGRESS_LIMIT.toMinutes()
                + " minutes; check the Kafka connection");
      }
    }
    return records;
  }
}
