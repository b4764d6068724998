package io.kubewarden.networkenforcer.cli.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.cli.management.ServiceMetrics;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * /healthz over real HTTP: it fails when a worker thread dies or a service says it stopped working.
 */
class ServiceRunnerProbesTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aWorkerThreadThatDiesOfAnUncaughtExceptionFailsLiveness() throws Exception {
    try (ServiceRunner runner =
        new ServiceRunner("probe-test", ServiceMetrics.create("probe-test"), 0, 0)) {
      runner.startManagement(AccessCheck.open());
      runner.ready("worker", () -> true);
      int port = runner.probePort();
      assertThat(get(port, "/healthz")).isEqualTo("200 threads ok\n");

      Thread worker =
          new Thread(
              () -> {
                throw new IllegalStateException("the worker's loop broke");
              },
              "probe-test-worker");
      worker.start();
      worker.join();

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> get(port, "/healthz"), "503 threads failing\n"::equals);
      // Readiness is another question: the process still answers, the kubelet restarts it through
      // liveness.
      assertThat(get(port, "/readyz")).isEqualTo("200 worker ok\n");
    }
    // A new runner watches afresh: an earlier death (another service of this JVM) does not count.
    try (ServiceRunner next =
        new ServiceRunner("probe-test-2", ServiceMetrics.create("probe-test-2"), 0, 0)) {
      next.startManagement(AccessCheck.open());
      assertThat(get(next.probePort(), "/healthz")).isEqualTo("200 threads ok\n");
    }
  }

  @Test
  void aServiceIsNotReadyBeforeItHasRegisteredWhatReadyMeans() throws Exception {
    try (ServiceRunner runner =
        new ServiceRunner("probe-test", ServiceMetrics.create("probe-test"), 0, 0)) {
      runner.startManagement(AccessCheck.open());
      int port = runner.probePort();
      // The management port opens first: alive, but still starting.
      assertThat(get(port, "/healthz")).isEqualTo("200 threads ok\n");
      assertThat(get(port, "/readyz")).isEqualTo("503 starting\n");
      runner.ready("stream", () -> true);
      assertThat(get(port, "/readyz")).isEqualTo("200 stream ok\n");
    }
  }

  @Test
  void aServiceThatStoppedWorkingFailsLivenessNamingIt() throws Exception {
    AtomicBoolean streamsAlive = new AtomicBoolean(true);
    try (ServiceRunner runner =
        new ServiceRunner("probe-test", ServiceMetrics.create("probe-test"), 0, 0)) {
      runner.startManagement(AccessCheck.open());
      runner.alive("kafka-streams", streamsAlive::get);
      int port = runner.probePort();
      assertThat(get(port, "/healthz")).isEqualTo("200 threads ok\nkafka-streams ok\n");
      streamsAlive.set(false);
      assertThat(get(port, "/healthz")).isEqualTo("503 threads ok\nkafka-streams failing\n");
    }
  }

  /** "STATUS BODY" of a GET. */
  private String get(int port, String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }
}
