package io.kubewarden.networkenforcer.writer.deadletter;

import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records the writer cannot read: kept as they were on the dead-letter topic, with the reason. */
public final class DeadLetters {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);
  private final Producer<byte[], byte[]> producer;
  private final Topic<byte[], byte[]> topic;
  private final MeterRegistry meters;

  public DeadLetters(
      Producer<byte[], byte[]> producer, Topic<byte[], byte[]> topic, MeterRegistry meters) {
    this.producer = producer;
    this.topic = topic;
    this.meters = meters;
  }

  /** Sends synchronously: the caller commits past the record only once it is safe on the topic. */
  public void send(ConsumerRecord<String, byte[]> record, String reason, Throwable error) {
    send(
        record.topic(),
        record.partition(),
        record.offset(),
        record.key(),
        record.value(),
        reason,
        error);
  }

  /**
   * A record read earlier, rebuilt from what it said (the status write that would have counted it
   * was refused for good); sent synchronously, as above.
   */
  public void send(
      String originTopic,
      int partition,
      long offset,
      String recordKey,
      byte[] value,
      String reason,
      Throwable error) {
    byte[] key = recordKey == null ? null : recordKey.getBytes(StandardCharsets.UTF_8);
    ProducerRecord<byte[], byte[]> out =
        new ProducerRecord<>(
            topic.name(),
            null,
            key,
            value,
            DeadLetterHeaders.of(
                "k8s-writer/" + originTopic, reason, error, originTopic, partition, offset));
    try {
      producer.send(out).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending to the dead-letter topic", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot send to the dead-letter topic: " + e.getCause(), e.getCause());
    }
    meters.counter("network.enforcer.writer.dead.letters", "topic", originTopic).increment();
    LOG.warn(
        "record {}-{}@{} sent to {}: {}", originTopic, partition, offset, topic.name(), reason);
  }
}
