package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the brokers answer, asked every interval on a thread of its own: ingest's readiness. A
 * producer buffers quietly for its whole delivery timeout (two minutes) while Kafka is down or a
 * connection hangs, so its sends say nothing in time; while the brokers do not answer, a pod that
 * is not ready is one a sender (fluent-bit behind the OTLP Service) leaves alone and retries from
 * its own buffer. A broker that hangs (no refusal, no answer) fails the check after its timeout.
 */
public final class KafkaReachability implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaReachability.class);

  private final Admin admin;
  private final Duration timeout;
  private final ScheduledExecutorService timer;
  private volatile boolean reachable;

  private KafkaReachability(KafkaSettings kafka, Duration interval, Duration timeout) {
    Properties config = kafka.clientConfig();
    config.put(AdminClientConfig.CLIENT_ID_CONFIG, "network-enforcer-ingest-reachability");
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
    // Reconnect at once when the broker is back, not after a long back-off.
    config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
    this.admin = Admin.create(config);
    this.timeout = timeout;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "kafka-reachability");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(this::check, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Asks now and then every {@code interval}; an answer later than {@code timeout} counts as none.
   */
  public static KafkaReachability start(KafkaSettings kafka, Duration interval, Duration timeout) {
    if (interval.isNegative() || interval.isZero() || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("interval and timeout must be positive");
    }
    return new KafkaReachability(kafka, interval, timeout);
  }

  private void check() {
    boolean now;
    try {
      admin
          .describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
          .clusterId()
          .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      now = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      now = false;
    }
    if (now != reachable) {
      if (now) {
        LOG.info("Kafka answers again: ready");
      } else {
        LOG.warn("Kafka did not answer within {} ms: not ready until it does", timeout.toMillis());
      }
    }
    reachable = now;
  }

  /** The last check's answer (false before the first one). */
  public boolean reachable() {
    return reachable;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    admin.close(Duration.ofSeconds(5));
  }
}
