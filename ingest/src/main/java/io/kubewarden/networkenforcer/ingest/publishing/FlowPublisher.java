package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes flow records to the flows topic, keyed by {@link FlowRecord#partitionKey()} so that
 * the flows of one workload stay in order. The producer is idempotent (no duplicates on retry),
 * compressed and batched.
 */
public final class FlowPublisher implements FlowSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlowPublisher.class);

  private final KafkaProducer<String, FlowRecord> producer;
  private final Topic<String, FlowRecord> topic;
  private final IngestMetrics metrics;

  public FlowPublisher(KafkaSettings kafka, ProducerTuning tuning, IngestMetrics metrics) {
    this.topic = kafka.topics().flows();
    this.metrics = metrics;
    this.producer = new KafkaProducer<>(producerConfig(kafka, tuning), new StringSerializer(),
        topic.valueSerde().serializer());
  }

  static Properties producerConfig(KafkaSettings kafka, ProducerTuning tuning) {
    Properties p = kafka.clientConfig();
    p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "network-enforcer-ingest");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, tuning.compression());
    p.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(tuning.linger().toMillis()));
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(tuning.batchSizeBytes()));
    return p;
  }

  @Override
  public void accept(FlowRecord record) {
    try {
      producer.send(new ProducerRecord<>(topic.name(), record.partitionKey(), record), (meta, error) -> {
        if (error != null) {
          metrics.publishFailed();
          LOG.warn("could not publish a flow to {}: {}", topic.name(), error.toString());
        }
      });
    } catch (RuntimeException e) {
      // Only reached when the producer is closed or the buffer stays full past max.block.ms.
      metrics.publishFailed();
      LOG.warn("could not publish a flow to {}: {}", topic.name(), e.toString());
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
