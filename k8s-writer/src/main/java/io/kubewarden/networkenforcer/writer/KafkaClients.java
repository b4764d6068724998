package io.kubewarden.networkenforcer.writer;

import io.kubewarden.networkenforcer.common.topics.IdempotentWrites;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka clients of one leader session, configured as the writer needs them: idempotent
 * producers, and consumers that read committed records only, commit by hand and export their client
 * metrics while the session lasts.
 */
final class KafkaClients implements AutoCloseable {
  private final WriterConfig config;
  private final MeterRegistry meters;
  private final List<KafkaClientMetrics> consumerMetrics = new ArrayList<>();

  KafkaClients(WriterConfig config, MeterRegistry meters) {
    this.config = config;
    this.meters = meters;
  }

  KafkaProducer<String, byte[]> producer() {
    return new KafkaProducer<>(producerConfig(), new StringSerializer(), new ByteArraySerializer());
  }

  KafkaProducer<byte[], byte[]> rawProducer() {
    return new KafkaProducer<>(
        producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
  }

  /**
   * A consumer of the group {@code <consumerGroup>-<what>}, its metrics bound to the registry. It
   * leaves its group when closed, a static member too: the session ends because leadership moved,
   * and the next leader (another replica, another member name) must not wait out this member's
   * session for the partitions.
   */
  KafkaConsumer<String, byte[]> consumer(String what) {
    KafkaConsumer<String, byte[]> consumer = new LeavingConsumer(consumerConfig(what));
    KafkaClientMetrics metrics = new KafkaClientMetrics(consumer, Tags.of("group", groupId(what)));
    metrics.bindTo(meters);
    consumerMetrics.add(metrics);
    return consumer;
  }

  private Properties producerConfig() {
    Properties p = config.kafka().clientConfig();
    IdempotentWrites.apply(p);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    // A proposal record refused as too large for the API server is parked on dead-letter as it
    // came.
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(Topics.MAX_RECORD_BYTES));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "network-enforcer-writer-" + config.identity());
    return p;
  }

  private String groupId(String what) {
    return config.consumerGroup() + "-" + what;
  }

  private Properties consumerConfig(String what) {
    Properties p = config.kafka().clientConfig();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId(what));
    if (config.groupInstanceId() != null) {
      // Static: a leader restarted in place (same pod) takes its dead member's place at once.
      p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, config.groupInstanceId() + "-" + what);
    }
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // The processor writes in transactions: records of one that aborts (a crash, a fenced zombie)
    // must not be counted, the processor writes them again. The client's default reads them.
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // A new group starts at the beginning: nothing produced before the first writer started is
    // lost.
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(
        ConsumerConfig.CLIENT_ID_CONFIG,
        "network-enforcer-writer-" + what + "-" + config.identity());
    return p;
  }

  /** A consumer whose {@link #close()} leaves the group, whatever its membership. */
  private static final class LeavingConsumer extends KafkaConsumer<String, byte[]> {
    LeavingConsumer(Properties config) {
      super(config, new StringDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void close() {
      close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP));
    }
  }

  /**
   * Unbinds the consumers' metrics, so a standby exports none. The clients are closed by their
   * owners.
   */
  @Override
  public void close() {
    consumerMetrics.forEach(KafkaClientMetrics::close);
  }
}
