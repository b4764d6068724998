package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes loss windows to the {@code data-plane-loss} topic, keyed {@code provider/node} so the
 * windows of one node stay in order. Idempotent producer: a retry never counts a loss twice.
 */
public final class LossPublisher implements Consumer<DataPlaneLoss>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LossPublisher.class);

  private final KafkaProducer<String, DataPlaneLoss> producer;
  private final Topic<String, DataPlaneLoss> topic;
  private final IngestMetrics metrics;

  public LossPublisher(KafkaSettings kafka, IngestMetrics metrics) {
    this.topic = kafka.topics().dataPlaneLoss();
    this.metrics = metrics;
    Properties p = kafka.clientConfig();
    p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "network-enforcer-ingest-loss");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    this.producer = new KafkaProducer<>(p, new StringSerializer(), topic.valueSerde().serializer());
  }

  @Override
  public void accept(DataPlaneLoss loss) {
    LOG.warn(
        "{} lost {} events{} between {} and {}: proposals are held not converged",
        loss.provider(),
        loss.lostEvents(),
        loss.node() == null ? "" : " on " + loss.node(),
        loss.from(),
        loss.to());
    try {
      producer.send(
          new ProducerRecord<>(topic.name(), loss.key(), loss),
          (meta, error) -> {
            if (error != null) {
              metrics.publishFailed();
              LOG.warn("could not publish a loss record to {}: {}", topic.name(), error.toString());
            }
          });
    } catch (RuntimeException e) {
      metrics.publishFailed();
      LOG.warn("could not publish a loss record to {}: {}", topic.name(), e.toString());
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
