package io.kubewarden.networkenforcer.writer.telemetry;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.tls.PemKeys;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where and how the writer exports its OpenTelemetry events.
 *
 * @param endpoint the collector: a URL ({@code https://host:4317}) or, as the chart documents for
 *     gRPC, {@code host:port} (TLS unless {@code insecure}); for {@code default} null means the
 *     chart's collector in the writer's namespace
 * @param caFile PEM CA bundle to trust (TLS); null trusts the JVM defaults
 * @param certFile PEM client certificate (mTLS), together with {@code keyFile}
 * @param keyFile PEM private key of the client certificate: PKCS#8, PKCS#1 RSA or SEC1 EC (what
 *     cert-manager writes), handed to the exporters as PKCS#8
 * @param headers sent with every export ({@code OTEL_EXPORTER_OTLP_HEADERS}), for example an API
 *     key
 * @param insecure plain text for an endpoint given without a scheme ({@code
 *     OTEL_EXPORTER_OTLP_INSECURE})
 */
public record TelemetrySettings(
    CollectorStrategy strategy,
    String endpoint,
    OtlpProtocol protocol,
    Path caFile,
    Path certFile,
    Path keyFile,
    Map<String, String> headers,
    boolean insecure) {

  /** The service name the Helm chart gives its bundled collector. */
  public static final String DEFAULT_COLLECTOR_SERVICE = "network-enforcer-otel-collector";

  public TelemetrySettings {
    strategy = strategy == null ? CollectorStrategy.DEFAULT : strategy;
    protocol = protocol == null ? OtlpProtocol.grpc : protocol;
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  public TelemetrySettings(
      CollectorStrategy strategy,
      String endpoint,
      OtlpProtocol protocol,
      Path caFile,
      Path certFile,
      Path keyFile) {
    this(strategy, endpoint, protocol, caFile, certFile, keyFile, Map.of(), false);
  }

  public static TelemetrySettings disabled() {
    return new TelemetrySettings(CollectorStrategy.none, null, OtlpProtocol.grpc, null, null, null);
  }

  /**
   * The endpoint as a URL: the configured one (a bare {@code host:port} gets its scheme), or the
   * bundled collector.
   */
  public String effectiveEndpoint(String namespace) {
    if (endpoint != null && !endpoint.isBlank()) {
      String e = endpoint.trim();
      return hasScheme(e) ? e : (insecure ? "http://" : "https://") + e;
    }
    int port = protocol == OtlpProtocol.grpc ? 4317 : 4318;
    return "https://" + DEFAULT_COLLECTOR_SERVICE + "." + namespace + ".svc.cluster.local:" + port;
  }

  private static boolean hasScheme(String endpoint) {
    return endpoint.startsWith("http://") || endpoint.startsWith("https://");
  }

  public TelemetrySettings validate() {
    if (strategy == CollectorStrategy.none) {
      return this;
    }
    if (strategy == CollectorStrategy.external && (endpoint == null || endpoint.isBlank())) {
      throw new ConfigException(
          "telemetry strategy external needs an endpoint; set "
              + "telemetry.externalCollector.endpoint (host:port for grpc, for example otel-collector.observability:4317, "
              + "or a URL such as https://otel-collector.observability:4318 for http/protobuf)");
    }
    if (endpoint != null && !endpoint.isBlank()) {
      String e = endpoint.trim();
      if (!hasScheme(e) && e.contains("://")) {
        throw new ConfigException(
            "telemetry endpoint '"
                + endpoint
                + "' must be host:port, http://host:port or "
                + "https://host:port");
      }
      URI uri;
      try {
        uri = URI.create(hasScheme(e) ? e : "https://" + e);
      } catch (IllegalArgumentException bad) {
        throw new ConfigException(
            "telemetry endpoint '" + endpoint + "' is neither host:port nor a URL");
      }
      if (uri.getHost() == null || !hasScheme(e) && uri.getPort() < 0) {
        throw new ConfigException(
            "telemetry endpoint '"
                + endpoint
                + "' must be host:port (for example "
                + "otel-collector.observability:4317) or http(s)://host:port");
      }
    }
    if ((certFile == null) != (keyFile == null)) {
      throw new ConfigException(
          "telemetry mTLS needs both a client certificate file and its key file");
    }
    for (Path p : new Path[] {caFile, certFile, keyFile}) {
      if (p != null && !Files.isReadable(p)) {
        throw new ConfigException("telemetry TLS file " + p + " does not exist or is not readable");
      }
    }
    if (keyFile != null) {
      clientKeyPkcs8(); // a key no exporter could read fails here, with its file named, not in a
      // channel builder
    }
    return this;
  }

  /**
   * The client key as PKCS#8 PEM, the one form gRPC's and OpenTelemetry's readers take; null
   * without mTLS.
   */
  public byte[] clientKeyPkcs8() {
    if (keyFile == null) {
      return null;
    }
    try {
      return PemKeys.toPkcs8Pem(Files.readAllBytes(keyFile));
    } catch (IOException e) {
      throw new ConfigException(
          "telemetry TLS key file " + keyFile + " is not a usable private key: " + e.getMessage());
    }
  }
}
