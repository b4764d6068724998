package io.kubewarden.networkenforcer.ingest.publishing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.HangingProxy;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ingest's readiness follows Kafka (issue 34, goal 3): ready while the broker answers, not ready
 * while it is down or while every connection to it hangs, ready again when it is back. The broker
 * advertises a proxy that can hang (accepts, holds, forwards nothing), so the clients meet silence,
 * not a refusal.
 */
class KafkaReachabilityTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void notReadyWhileKafkaIsDownOrHangsReadyAgainWhenItIsBack(@TempDir Path dir) {
    int brokerPort = LoopbackPorts.free();
    try (HangingProxy proxy = new HangingProxy(LoopbackPorts.free(), brokerPort)) {
      EmbeddedKafkaBroker broker =
          EmbeddedKafkaBroker.builder()
              .dataDir(dir)
              .port(brokerPort)
              .config("advertised.listeners", "PLAINTEXT://127.0.0.1:" + proxy.port())
              .build()
              .start();
      KafkaSettings kafka =
          new KafkaSettings("127.0.0.1:" + proxy.port(), null, 1, (short) 1, Map.of());
      try (KafkaReachability reachability =
          KafkaReachability.start(kafka, Duration.ofMillis(200), Duration.ofSeconds(1))) {
        await("reachable").atMost(WAIT).until(reachability::reachable);

        proxy.hang();
        await("not ready while every connection hangs")
            .atMost(WAIT)
            .until(() -> !reachability.reachable());
        proxy.resume();
        await("ready when the connections flow again").atMost(WAIT).until(reachability::reachable);

        broker.close();
        await("not ready while the broker is down")
            .atMost(WAIT)
            .until(() -> !reachability.reachable());
        // The port was just released; a socket in TIME_WAIT can delay the bind briefly.
        await("broker restarted")
            .atMost(WAIT)
            .ignoreExceptions()
            .until(() -> broker.start() != null);
        await("ready when the broker is back").atMost(WAIT).until(reachability::reachable);
      } finally {
        broker.close();
      }
    }
  }

  @Test
  void refusesAnIntervalOrTimeoutThatIsNotPositive() {
    KafkaSettings kafka = new KafkaSettings("127.0.0.1:1", null, 1, (short) 1, Map.of());
    assertThatThrownBy(() -> KafkaReachability.start(kafka, Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> KafkaReachability.start(kafka, Duration.ofSeconds(1), Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
