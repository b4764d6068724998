package io.kubewarden.networkenforcer.processor.decoding;

import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the bytes of one input topic. A record that cannot be read is passed on as {@link
 * Decoded#failed} with its original bytes and the reason, so that it reaches the dead-letter topic
 * in the same transaction as the good records around it.
 *
 * <p>Why not a {@code DeserializationExceptionHandler}: in Kafka Streams 4.1.1 the handler can only
 * answer CONTINUE or FAIL; writing the dead letter from it would need a second producer outside the
 * exactly-once transaction (and outside the TopologyTestDriver).
 */
public final class RecordDecoder<V> implements Processor<byte[], byte[], String, Decoded<V>> {
  private static final Logger LOG = LoggerFactory.getLogger(RecordDecoder.class);
  private static final String SOURCE = "stream-processor";

  private final Deserializer<V> deserializer;
  private final String topic;
  private final Consumer<String> keyCheck;
  private final ProcessorMetrics metrics;
  private ProcessorContext<String, Decoded<V>> context;

  /**
   * @param keyCheck null when any key will do; otherwise the key is required and this check throws
   *     {@link IllegalArgumentException} for a key that is not usable (a topic keyed by target
   *     needs a target key to reach the right partition)
   */
  public RecordDecoder(
      String topic,
      Deserializer<V> deserializer,
      Consumer<String> keyCheck,
      ProcessorMetrics metrics) {
    this.topic = topic;
    this.deserializer = deserializer;
    this.keyCheck = keyCheck;
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, Decoded<V>> context) {
    this.context = context;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    if (keyCheck != null) {
      if (key == null || key.isBlank()) {
        deadLetter(
            record,
            key,
            "record of topic " + topic + " has no key; it must be keyed by target",
            null);
        return;
      }
      try {
        keyCheck.accept(key);
      } catch (IllegalArgumentException e) {
        deadLetter(
            record, key, "record of topic " + topic + " has an unusable key: " + e.getMessage(), e);
        return;
      }
    }
    V value;
    try {
      value = deserializer.deserialize(topic, record.value());
    } catch (RuntimeException e) {
      deadLetter(record, key, e.getMessage(), e);
      return;
    }
    context.forward(record.withKey(key).withValue(Decoded.ok(value)));
  }

  private void deadLetter(
      Record<byte[], byte[]> record, String key, String reason, Throwable error) {
    context.forward(deadLettered(context, record, topic, key, reason, error, metrics));
  }

  /**
   * {@code record} of {@code topic} as a {@link Decoded#failed} record: its original key, value and
   * headers, with the dead-letter headers that say where it came from and why it cannot be read.
   */
  public static <V> Record<String, Decoded<V>> deadLettered(
      ProcessorContext<?, ?> context,
      Record<byte[], byte[]> record,
      String topic,
      String key,
      String reason,
      Throwable error,
      ProcessorMetrics metrics) {
    String originTopic = context.recordMetadata().map(RecordMetadata::topic).orElse(topic);
    int partition = context.recordMetadata().map(RecordMetadata::partition).orElse(-1);
    long offset = context.recordMetadata().map(RecordMetadata::offset).orElse(-1L);
    // Keep the producer's own headers, then add ours.
    Headers headers = new RecordHeaders();
    for (Header h : record.headers()) {
      headers.add(h);
    }
    for (Header h :
        DeadLetterHeaders.of(SOURCE + "/" + topic, reason, error, originTopic, partition, offset)) {
      headers.add(h);
    }
    metrics.deadLettered(topic);
    LOG.warn("dead-lettering record {}-{}@{}: {}", originTopic, partition, offset, reason);
    return new Record<>(
        key, Decoded.failed(record.key(), record.value(), headers), record.timestamp());
  }
}
