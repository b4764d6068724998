package io.kubewarden.networkenforcer.cli.history;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Asks the brokers for their cluster id before a command reads the topics: the Kafka clients would
 * otherwise wait a minute in silence and then report "Timeout expired while fetching topic
 * metadata" without naming the address they tried.
 */
public final class KafkaReachability {
  /** How long a command waits for the brokers to answer before it says so. */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  private KafkaReachability() {}

  /** Returns when the brokers answer; otherwise fails naming them (a runtime failure, exit 1). */
  public static void require(KafkaSettings kafka) {
    Properties config = kafka.clientConfig();
    int ms = (int) TIMEOUT.toMillis();
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    try (Admin admin = Admin.create(config)) {
      try {
        admin.describeCluster().clusterId().get(ms, TimeUnit.MILLISECONDS);
      } catch (TimeoutException | ExecutionException e) {
        String cause =
            e instanceof ExecutionException && e.getCause() != null
                ? ": " + PolicyDocuments.firstLine(e.getCause().getMessage())
                : "";
        throw new IllegalStateException(
            "Kafka at "
                + kafka.bootstrapServers()
                + " did not answer within "
                + TIMEOUT.toSeconds()
                + " s"
                + cause
                + "; check --kafka-bootstrap-servers (NE_KAFKA_BOOTSTRAP_SERVERS), "
                + "that the brokers are reachable from here, and the client's security settings (--kafka-property, "
                + "--kafka-properties-file)",
            e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted while waiting for Kafka at " + kafka.bootstrapServers(), e);
      } finally {
        admin.close(Duration.ZERO);
      }
    }
  }
}
