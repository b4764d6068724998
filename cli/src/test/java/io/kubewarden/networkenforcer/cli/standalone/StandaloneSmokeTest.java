package io.kubewarden.networkenforcer.cli.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code standalone} end to end on one machine: against a real kube-apiserver it starts the
 * embedded broker, the processor, the writer and the Istio OTLP receiver, reports ready and serves
 * Prometheus metrics (JVM, Kafka Streams); without a reachable API server it stops at once with a
 * message naming the fix.
 */
class StandaloneSmokeTest {
  @TempDir Path dir;

  @Test
  void withoutAReachableApiServerItSaysWhatToFix() throws Exception {
    Path kubeconfig = kubeconfig("https://127.0.0.1:1");

    CliRun run =
        CliRun.run(
            "standalone",
            "--kubeconfig",
            kubeconfig.toString(),
            "--data-dir",
            dir.toString(),
            "--management-port",
            "0",
            "--probe-port",
            "0",
            "--embedded-kafka-port",
            "0",
            "--provider",
            "istio",
            "--provider-tls-mode",
            "insecure",
            "--otlp-port",
            String.valueOf(LoopbackPorts.free()),
            "--otlp-http-port",
            "0");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("cannot reach the Kubernetes API server at https://127.0.0.1:1")
        .contains("--kubeconfig")
        .doesNotContain("\tat ");
    assertThat(dir.resolve("kafka")).as("nothing started").doesNotExist();
  }

  @Test
  void startsEverythingAndServesHealthReadinessAndMetrics() throws Exception {
    // A real API server as an installed chart prepares it: the writer is Ready only as the leader
    // with
    // synced caches, which a mock without leases and watches never gives.
    ChartedApiServer server = ChartedApiServer.start("demo");
    try {
      Path kubeconfig = server.api().kubeconfig();
      String otlpPort = String.valueOf(LoopbackPorts.free());

      CompletableFuture<CliRun> run =
          CompletableFuture.supplyAsync(
              () ->
                  CliRun.run(
                      "standalone",
                      "--kubeconfig",
                      kubeconfig.toString(),
                      "--data-dir",
                      dir.toString(),
                      "--management-port",
                      "0",
                      "--probe-port",
                      "0",
                      "--management-auth",
                      "none",
                      "--embedded-kafka-port",
                      "0",
                      "--kafka-partitions",
                      "2",
                      "--provider",
                      "istio",
                      "--provider-tls-mode",
                      "insecure",
                      "--otlp-port",
                      otlpPort,
                      "--otlp-http-port",
                      "0",
                      "--pod-namespace",
                      "network-enforcer",
                      "--pod-name",
                      "standalone-0",
                      "--lease-name",
                      ChartedApiServer.leaseName(ChartedApiServer.KUBERNETES),
                      // As the chart runs it: the cluster's ranges read once before processing.
                      "--discover-cluster-cidrs"));
      try {
        await()
            .atMost(Duration.ofMinutes(3))
            .until(() -> run.isDone() || !ServiceRunner.active().isEmpty());
        assertThat(run.isDone()).as(() -> "standalone ended early: " + run.join().err()).isFalse();
        int port = ServiceRunner.active().iterator().next().managementPort();
        int probes = ServiceRunner.active().iterator().next().probePort();
        HttpClient http = HttpClient.newHttpClient();

        assertThat(get(http, probes, "/healthz").statusCode()).isEqualTo(200);
        await()
            .atMost(Duration.ofMinutes(2))
            .until(() -> get(http, probes, "/readyz").statusCode() == 200);
        assertThat(get(http, probes, "/readyz").body())
            .contains("kafka-streams ok")
            .contains("ingest ok")
            .contains("writer ok");
        String metrics = get(http, port, "/metrics").body();
        assertThat(metrics)
            .contains("jvm_memory_used_bytes")
            .contains("service=\"standalone\"")
            // Kafka Streams and its consumer (records-lag) through the Micrometer binder.
            .containsPattern("kafka_stream_\\w+")
            .containsPattern("kafka_consumer_\\w*lag\\w*")
            .contains("network_enforcer_writer_leader");
        // One registry for all three: the processor's and the leading writer's consumers report
        // lag side by side, per group (the same tag keys, or Prometheus would refuse one of them).
        await()
            .atMost(Duration.ofMinutes(2))
            .until(
                () -> get(http, port, "/metrics").body(),
                body ->
                    body.contains("network_enforcer_writer_leader{service=\"standalone\"} 1.0")
                        && body.matches(
                            "(?s).*kafka_consumer_fetch_manager_records_lag_max\\{[^}]*group=\"network-enforcer-writer-proposals\".*")
                        && body.matches(
                            "(?s).*kafka_consumer_fetch_manager_records_lag_max\\{[^}]*group=\"network-enforcer-processor\".*")
                        && body.matches(
                            "(?s).*network_enforcer_processor_running\\{[^}]*} 1\\.0.*"));
        // The data directory is on disk: Kafka's log and the Streams state.
        assertThat(dir.resolve("kafka/log/meta.properties")).exists();
        assertThat(Files.list(dir.resolve("streams")).count()).isPositive();
      } finally {
        ServiceRunner.stopAll();
        CliRun result = run.get(2, TimeUnit.MINUTES);
        assertThat(result.exitCode()).as(result.err()).isZero();
      }
    } finally {
      server.close();
    }
  }

  private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private Path kubeconfig(String server) throws IOException {
    Path file = dir.resolve("kubeconfig-" + System.nanoTime());
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
          - name: test
            cluster: {server: "%s", insecure-skip-tls-verify: true}
        users:
          - name: test
            user: {token: test-token}
        contexts:
          - name: test
            context: {cluster: test, user: test, namespace: network-enforcer}
        current-context: test
        """
            .formatted(server));
    return file;
  }
}
