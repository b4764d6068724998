package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.IdempotentWrites;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes unreadable input unchanged to the dead-letter topic, the reason in its headers. */
public final class DeadLetterPublisher implements DeadLetterSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterPublisher.class);

  private final KafkaProducer<byte[], byte[]> producer;
  private final Topic<byte[], byte[]> topic;
  private final IngestMetrics metrics;

  public DeadLetterPublisher(KafkaSettings kafka, IngestMetrics metrics) {
    this.topic = kafka.topics().deadLetter();
    this.metrics = metrics;
    Properties p = kafka.clientConfig();
    p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "network-enforcer-ingest-dead-letter");
    IdempotentWrites.apply(p);
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  @Override
  public void deadLetter(String source, String reason, byte[] payload, Throwable error) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(
            topic.name(),
            null,
            null,
            null,
            payload,
            DeadLetterHeaders.of(source, reason, error, null, -1, -1L));
    try {
      producer.send(
          record,
          (meta, e) -> {
            if (e != null) {
              metrics.publishFailed();
              LOG.warn(
                  "could not write a dead letter from {} ({}): {}", source, reason, e.toString());
            } else {
              metrics.deadLettered();
            }
          });
    } catch (RuntimeException e) {
      metrics.publishFailed();
      LOG.warn("could not write a dead letter from {} ({}): {}", source, reason, e.toString());
    }
  }

  public void flush() {
    producer.flush();
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
