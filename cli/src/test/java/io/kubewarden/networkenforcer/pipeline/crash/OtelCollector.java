package io.kubewarden.networkenforcer.pipeline.crash;

import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.testing.KubeTools;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The OpenTelemetry collector of the chart's default image (built from {@code
 * hack/tools/cluster/otelcol} by {@code hack/tools/cluster.sh}) as a process: an OTLP gRPC receiver
 * with TLS, as the writer's exporter speaks to a {@code host:port} endpoint, and the debug exporter
 * at {@code verbosity: detailed} writing every log record to a file the test reads back ({@link
 * CollectedEvents}).
 */
public final class OtelCollector implements AutoCloseable {
  public static final String BINARY = KubeTools.OTELCOL;

  private final Process process;
  private final int port;
  private final Path caFile;
  private final Path records;
  private final Path log;

  private OtelCollector(Process process, int port, Path caFile, Path records, Path log) {
    this.process = process;
    this.port = port;
    this.caFile = caFile;
    this.records = records;
    this.log = log;
  }

  /** Starts it with its files in {@code dir}, its output in {@code logs}; waits until healthy. */
  public static OtelCollector start(Path dir, Path logs, Duration wait) throws Exception {
    Path binary = KubeTools.require(BINARY);
    Path tls =
        TestCertificates.newCa("crash-collector-ca")
            .issue(
                dir.resolve("collector-tls"), "127.0.0.1", List.of(), List.of("127.0.0.1"), false);
    int port = LoopbackPorts.free();
    int health = LoopbackPorts.free();
    Path records = logs.resolve("collector-records.txt");
    Files.deleteIfExists(records);
    Path config =
        Files.writeString(
            dir.resolve("collector.yaml"),
            String.join(
                "\n",
                "receivers:",
                "  otlp:",
                "    protocols:",
                "      grpc:",
                "        endpoint: 127.0.0.1:" + port,
                "        tls:",
                "          cert_file: " + tls.resolve("tls.crt"),
                "          key_file: " + tls.resolve("tls.key"),
                "exporters:",
                "  debug:",
                "    verbosity: detailed",
                "    use_internal_logger: false",
                "    output_paths: [" + records + "]",
                // Every record: the output is sampled per message otherwise.
                "    sampling_initial: 1000000",
                "    sampling_thereafter: 1",
                "extensions:",
                "  health_check:",
                "    endpoint: 127.0.0.1:" + health,
                "service:",
                "  extensions: [health_check]",
                "  telemetry:",
                // No listener of its own (the default is :8888, shared by every collector).
                "    metrics:",
                "      level: none",
                "  pipelines:",
                "    logs:",
                "      receivers: [otlp]",
                "      exporters: [debug]",
                ""));
    Path log = logs.resolve("collector.log");
    Process process =
        new ProcessBuilder(binary.toString(), "--config", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    OtelCollector collector = new OtelCollector(process, port, tls.resolve("ca.crt"), records, log);
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health)).build();
    try {
      await("collector healthy")
          .atMost(wait)
          .pollInterval(Duration.ofMillis(300))
          .ignoreExceptions()
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException("collector exited: " + Files.readString(log));
                }
                return http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
              });
    } catch (RuntimeException e) {
      collector.close();
      throw new IllegalStateException("collector not healthy: " + Files.readString(log), e);
    }
    return collector;
  }

  /** {@code host:port}: the writer's exporter speaks TLS to an endpoint without a scheme. */
  public String endpoint() {
    return "127.0.0.1:" + port;
  }

  /** The CA of the receiver's certificate, for the writer's {@code --otel-ca-file}. */
  public Path caFile() {
    return caFile;
  }

  /** Every log record the collector has exported so far. */
  public CollectedEvents events() {
    try {
      return CollectedEvents.parse(Files.exists(records) ? Files.readAllLines(records) : List.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String logTail() {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
