package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.topics.IdempotentWrites;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes flow records to the flows topic, keyed by {@link FlowRecord#partitionKey()} so that the
 * flows of one workload stay in order. The producer is idempotent (no duplicates on retry),
 * compressed and batched. A flow counts as published when Kafka acknowledged it; {@link #settle()}
 * lets a source answer its sender only then.
 */
public final class FlowPublisher implements FlowSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlowPublisher.class);

  /**
   * Names who wrote a record when several ingest processes write the topic each for its own part
   * (node-local ingest: one per node). A restarted writer resumes from its own records ({@link
   * ResumePoint}), and the broker's logs and quotas see it as client id {@code
   * network-enforcer-ingest-<writer>}.
   */
  public static final String WRITER_HEADER = "ne-writer";

  private final KafkaProducer<String, FlowRecord> producer;
  private final Topic<String, FlowRecord> topic;
  private final IngestMetrics metrics;
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong settledFailures = new AtomicLong();
  private volatile LossSink losses = LossSink.NONE;

  /** The {@link #WRITER_HEADER} of every record, or null when one process writes them all. */
  private final byte[] writer;

  public FlowPublisher(KafkaSettings kafka, ProducerTuning tuning, IngestMetrics metrics) {
    this(kafka, tuning, metrics, null);
  }

  /**
   * @param writer this process's part of the flows ({@code node/<name>}), or null
   */
  public FlowPublisher(
      KafkaSettings kafka, ProducerTuning tuning, IngestMetrics metrics, String writer) {
    this.topic = kafka.topics().flows();
    this.metrics = metrics;
    this.writer = writer == null ? null : writer.getBytes(StandardCharsets.UTF_8);
    this.producer =
        new KafkaProducer<>(
            producerConfig(kafka, tuning, writer),
            new StringSerializer(),
            topic.valueSerde().serializer());
  }

  static Properties producerConfig(KafkaSettings kafka, ProducerTuning tuning) {
    return producerConfig(kafka, tuning, null);
  }

  static Properties producerConfig(KafkaSettings kafka, ProducerTuning tuning, String writer) {
    Properties p = kafka.clientConfig();
    p.putIfAbsent(
        ProducerConfig.CLIENT_ID_CONFIG,
        writer == null
            ? "network-enforcer-ingest"
            : "network-enforcer-ingest-" + writer.replace('/', '-'));
    IdempotentWrites.apply(p);
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
   * Sends; the record is counted as published only once Kafka acknowledged it. One that Kafka did
   * not take (unreachable past the delivery timeout, the buffer full past max.block.ms) is counted
   * as a publish error and reported to the loss sink, so it reaches {@code data-plane-loss}.
   */
  @Override
  public void accept(FlowRecord record) {
    try {
      producer.send(
          new ProducerRecord<>(
              topic.name(),
              null,
              record.partitionKey(),
              record,
              writer == null ? null : List.of(new RecordHeader(WRITER_HEADER, writer))),
          (meta, error) -> {
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

  /**
   * Waits for the acknowledgement of every record sent so far; false when one failed since the last
   * call.
   */
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
