package io.kubewarden.networkenforcer.writer.telemetry;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where and how the writer exports its OpenTelemetry events.
 *
 * @param endpoint collector URL; for {@code default} null means the chart's collector in {@code namespace}
 * @param caFile PEM CA bundle to trust (TLS); null trusts the JVM defaults
 * @param certFile PEM client certificate (mTLS), together with {@code keyFile}
 * @param keyFile PEM PKCS#8 private key of the client certificate
 */
public record TelemetrySettings(CollectorStrategy strategy, String endpoint, OtlpProtocol protocol, Path caFile,
    Path certFile, Path keyFile) {

  /** The service name the Helm chart gives its bundled collector. */
  public static final String DEFAULT_COLLECTOR_SERVICE = "network-enforcer-otel-collector";

  public TelemetrySettings {
    strategy = strategy == null ? CollectorStrategy.DEFAULT : strategy;
    protocol = protocol == null ? OtlpProtocol.grpc : protocol;
  }

  public static TelemetrySettings disabled() {
    return new TelemetrySettings(CollectorStrategy.none, null, OtlpProtocol.grpc, null, null, null);
  }

  /** The endpoint to send to: the configured one, or the bundled collector for {@code default}. */
  public String effectiveEndpoint(String namespace) {
    if (endpoint != null && !endpoint.isBlank()) {
      return endpoint;
    }
    int port = protocol == OtlpProtocol.grpc ? 4317 : 4318;
    return "https://" + DEFAULT_COLLECTOR_SERVICE + "." + namespace + ".svc.cluster.local:" + port;
  }

  public TelemetrySettings validate() {
    if (strategy == CollectorStrategy.none) {
      return this;
    }
    if (strategy == CollectorStrategy.external && (endpoint == null || endpoint.isBlank())) {
      throw new ConfigException("telemetry strategy external needs an endpoint; set "
          + "telemetry.externalCollector.endpoint (for example https://otel-collector.observability:4317)");
    }
    if (endpoint != null && !endpoint.isBlank()) {
      URI uri;
      try {
        uri = URI.create(endpoint);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("telemetry endpoint '" + endpoint + "' is not a URL");
      }
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        throw new ConfigException("telemetry endpoint '" + endpoint + "' must be http://host:port or https://host:port");
      }
    }
    if ((certFile == null) != (keyFile == null)) {
      throw new ConfigException("telemetry mTLS needs both a client certificate file and its key file");
    }
    for (Path p : new Path[] {caFile, certFile, keyFile}) {
      if (p != null && !Files.isReadable(p)) {
        throw new ConfigException("telemetry TLS file " + p + " does not exist or is not readable");
      }
    }
    return this;
  }
}
