package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes flow records to the flows topic, keyed by {@link FlowRecord#partitionKey()} so that
 * the flows of one workload stay in order. The producer is idempotent (no duplicates on retry),
 * compressed and batched. A flow counts as published when Kafka acknowledged it; {@link #settle()}
 * lets a source answer its sender only then.
 */
public final class FlowPublisher implements FlowSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlowPublisher.class);

  private final KafkaProducer<String, FlowRecord> producer;
  private final Topic<String, FlowRecord> topic;
  private final IngestMetrics metrics;
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong settledFailures = new AtomicLong();
  private volatile LossSink losses = LossSink.NONE;

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

  /** Where records Kafka did not take are reported as lost (counted in the metrics either way). */
  public FlowPublisher onLoss(LossSink sink) {
    this.losses = sink;
    return this;
  }

  /**
   * Sends; the record is counted as published only once Kafka acknowledged it. One that Kafka did not
   * take (unreachable past the delivery timeout, the buffer full past max.block.ms) is counted as a
   * publish error and reported to the loss sink, so it reaches {@code data-plane-loss}.
   */
  @Override
  public void accept(FlowRecord record) {
    try {
      producer.send(new ProducerRecord<>(topic.name(), record.partitionKey(), record), (meta, error) -> {
        if (error == null) {
          metrics.published(record.provider());
        } else {
          failed(record, error);
        }
      });
    } catch (RuntimeException e) {
      failed(record, e);
    }
  }

  private void failed(FlowRecord record, Throwable error) {
    failures.incrementAndGet();
    metrics.publishFailed();
    losses.lost(record.count(), null, record.time());
    LOG.warn("could not publish a flow to {}: {}", topic.name(), error.toString());
  }

  /** Waits for the acknowledgement of every record sent so far; false when one failed since the last call. */
  @Override
  public boolean settle() {
    long before = settledFailures.get();
    producer.flush();
    long now = failures.get();
    settledFailures.accumulateAndGet(now, Math::max);
    return now == before;
  }

  public void flush() {
    producer.flush();
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
