package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.retry.Backoff;
import io.kubewarden.networkenforcer.common.topics.IdempotentWrites;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes loss windows to the {@code data-plane-loss} topic, keyed {@code provider/node} so the
 * windows of one node stay in order. Idempotent producer: a retry never counts a loss twice.
 *
 * <p>A loss record outlives the outage that made it: the flows Kafka did not take within their
 * delivery timeout are reported here while Kafka is still away. So this producer has no delivery
 * timeout (the records are few: one per node and window), and a record it could not even hand to
 * the producer (no metadata of the topic within max.block.ms, as after the broker's last answer
 * said the partition had no leader) is sent again with a backoff of 1 s doubling to 30 s until
 * Kafka takes it. Errors that retrying cannot fix (not authorized, too large) are counted in {@code
 * network_enforcer_ingest_publish_errors_total} and logged, as is what a shutdown while Kafka is
 * away still holds after 10 s.
 */
public final class LossPublisher implements Consumer<DataPlaneLoss>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LossPublisher.class);

  private final KafkaProducer<String, DataPlaneLoss> producer;
  private final Topic<String, DataPlaneLoss> topic;
  private final IngestMetrics metrics;
  private final ScheduledExecutorService retries;
  private volatile boolean closed;

  public LossPublisher(KafkaSettings kafka, IngestMetrics metrics) {
    this.topic = kafka.topics().dataPlaneLoss();
    this.metrics = metrics;
    Properties p = kafka.clientConfig();
    p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "network-enforcer-ingest-loss");
    IdempotentWrites.apply(p);
    // Whatever --kafka-property says for the flows: with the flows' timeout (two minutes by
    // default), an outage longer than that lost the flows and then the record of their loss.
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(Integer.MAX_VALUE));
    this.producer = new KafkaProducer<>(p, new StringSerializer(), topic.valueSerde().serializer());
    this.retries =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "loss-publisher-retry");
              t.setDaemon(true);
              return t;
            });
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
    send(loss, new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30)));
  }

  private void send(DataPlaneLoss loss, Backoff backoff) {
    try {
      producer.send(
          new ProducerRecord<>(topic.name(), loss.key(), loss),
          (meta, error) -> {
            if (error != null) {
              failed(loss, backoff, error);
            }
          });
    } catch (RuntimeException e) {
      failed(loss, backoff, e);
    }
  }

  /** Runs on the producer's thread when from a callback: a resend never blocks it. */
  private void failed(DataPlaneLoss loss, Backoff backoff, Throwable error) {
    if (!closed && error instanceof RetriableException) {
      Duration wait = backoff.next();
      try {
        retries.schedule(() -> send(loss, backoff), wait.toMillis(), TimeUnit.MILLISECONDS);
        LOG.warn(
            "loss record not taken by {} yet, again in {} ms: {}",
            topic.name(),
            wait.toMillis(),
            error.toString());
        return;
      } catch (RejectedExecutionException e) {
        // closing: counted below
      }
    }
    metrics.publishFailed();
    LOG.warn("could not publish a loss record to {}: {}", topic.name(), error.toString());
  }

  @Override
  public void close() {
    closed = true;
    retries.shutdownNow();
    producer.close(Duration.ofSeconds(10));
  }
}
