package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.Durations;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.telemetry.CollectorStrategy;
import io.kubewarden.networkenforcer.writer.telemetry.OtlpEnvironment;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** The writer's options (writer and standalone), named like the chart's environment variables. */
public class WriterOptions {
  @Option(
      names = "--status-sync-interval",
      paramLabel = "DURATION",
      defaultValue = "30s",
      description =
          "wnpStatusUpdateInterval: how often violations reach the WNP status (default: ${DEFAULT-VALUE}).")
  String statusSyncInterval;

  /**
   * Removed: the writer always holds the Lease before it writes, also as a single replica (a second
   * writer started by mistake then waits instead of racing). Kept hidden so that a configuration
   * that still sets it is told so instead of being ignored.
   */
  @Option(names = "--leader-election", paramLabel = "true|false", hidden = true)
  String leaderElection;

  @Option(
      names = "--lease-name",
      paramLabel = "NAME",
      defaultValue = WriterConfig.DEFAULT_LEASE_NAME,
      description = "Name of the coordination.k8s.io Lease (default: ${DEFAULT-VALUE}).")
  String leaseName;

  @Option(
      names = "--lease-namespace",
      paramLabel = "NAMESPACE",
      description = "Namespace of the Lease; default --pod-namespace.")
  String leaseNamespace;

  @Option(
      names = "--telemetry-collector-strategy",
      paramLabel = "default|external|none",
      defaultValue = "none",
      description = "Where violation events go (default: ${DEFAULT-VALUE}; the chart sets it).")
  String collectorStrategy;

  @Option(
      names = "--otel-endpoint",
      paramLabel = "URL|HOST:PORT",
      description =
          "OTLP collector: a URL "
              + "(https://host:4317) or host:port; default OTEL_EXPORTER_OTLP_ENDPOINT.")
  String otelEndpoint;

  @Option(
      names = "--otel-protocol",
      paramLabel = "grpc|http/protobuf",
      description = "OTLP protocol; default OTEL_EXPORTER_OTLP_PROTOCOL, else grpc.")
  String otelProtocol;

  @Option(
      names = "--otel-ca-file",
      paramLabel = "FILE",
      description = "PEM CA bundle of the collector.")
  Path otelCaFile;

  @Option(
      names = "--otel-client-cert-file",
      paramLabel = "FILE",
      description = "PEM client certificate (mTLS).")
  Path otelClientCertFile;

  @Option(
      names = "--otel-client-key-file",
      paramLabel = "FILE",
      description = "PEM client key (mTLS): PKCS#8, PKCS#1 RSA or SEC1 EC.")
  Path otelClientKeyFile;

  @Option(
      names = "--live-view",
      paramLabel = "true|false",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description =
          "Serve the read-only connectivity graph of the cluster's proposals, "
              + "policies and violations at /view on the management port, from the leader's caches "
              + "(default: ${DEFAULT-VALUE}).")
  boolean liveView;

  /** The validated writer configuration. */
  public WriterConfig config(KafkaSettings kafka, String podNamespace, String podName) {
    return config(kafka, podNamespace, podName, System.getenv());
  }

  /**
   * The same, with the standard OTEL_EXPORTER_OTLP_* variables of {@code env} filling what no
   * option set.
   */
  public WriterConfig config(
      KafkaSettings kafka, String podNamespace, String podName, Map<String, String> env) {
    if (leaderElection != null) {
      throw new ConfigException(
          "--leader-election (NE_LEADER_ELECTION) was removed: the writer always takes the "
              + "Lease --lease-name before it writes, which a single replica gets at once; remove the setting");
    }
    TelemetrySettings telemetry =
        OtlpEnvironment.complete(
            new TelemetrySettings(
                CollectorStrategy.parse(collectorStrategy),
                otelEndpoint,
                null,
                otelCaFile,
                otelClientCertFile,
                otelClientKeyFile),
            otelProtocol,
            env);
    WriterConfig.Builder b =
        WriterConfig.builder()
            .namespace(
                leaseNamespace == null || leaseNamespace.isBlank() ? podNamespace : leaseNamespace)
            .leaseName(leaseName)
            .statusUpdateInterval(Durations.parse("--status-sync-interval", statusSyncInterval))
            .telemetry(telemetry)
            .kafka(kafka)
            .liveView(liveView);
    if (podName != null && !podName.isBlank()) {
      b.identity(podName);
    }
    return b.build().validate();
  }
}
