package io.kubewarden.networkenforcer.writer.telemetry;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The standard OpenTelemetry exporter variables, read as the reference controller reads them:
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code _PROTOCOL}, {@code _HEADERS}, {@code _CERTIFICATE},
 * {@code _CLIENT_CERTIFICATE}, {@code _CLIENT_KEY}, {@code _INSECURE}, each also in its logs-signal
 * form ({@code OTEL_EXPORTER_OTLP_LOGS_*}), which wins. They fill what the writer's own settings
 * leave open; a setting given explicitly wins.
 */
public final class OtlpEnvironment {
  private static final String PREFIX = "OTEL_EXPORTER_OTLP_";
  private static final String LOGS_PREFIX = "OTEL_EXPORTER_OTLP_LOGS_";

  private OtlpEnvironment() {}

  /**
   * @param explicitProtocol the protocol given as an option, or null to take the environment's
   *     (then grpc)
   */
  public static TelemetrySettings complete(
      TelemetrySettings given, String explicitProtocol, Map<String, String> env) {
    String endpoint = first(given.endpoint(), get(env, "ENDPOINT"));
    OtlpProtocol protocol =
        OtlpProtocol.parse(first(explicitProtocol, get(env, "PROTOCOL"), "grpc"));
    Path ca = given.caFile() != null ? given.caFile() : path(get(env, "CERTIFICATE"));
    Path cert = given.certFile() != null ? given.certFile() : path(get(env, "CLIENT_CERTIFICATE"));
    Path key = given.keyFile() != null ? given.keyFile() : path(get(env, "CLIENT_KEY"));
    Map<String, String> headers = new LinkedHashMap<>(headers(get(env, "HEADERS")));
    headers.putAll(given.headers());
    boolean insecure =
        given.insecure()
            || "true".equals(String.valueOf(get(env, "INSECURE")).toLowerCase(Locale.ROOT));
    return new TelemetrySettings(
        given.strategy(), endpoint, protocol, ca, cert, key, headers, insecure);
  }

  /**
   * {@code key1=value1,key2=value2}, values URL-encoded (W3C baggage style, as the specification
   * says).
   */
  static Map<String, String> headers(String value) {
    Map<String, String> out = new LinkedHashMap<>();
    if (value == null || value.isBlank()) {
      return out;
    }
    for (String pair : value.split(",")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException(
            "OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas; '"
                + pair.trim()
                + "' is not");
      }
      out.put(
          URLDecoder.decode(pair.substring(0, eq).trim(), StandardCharsets.UTF_8),
          URLDecoder.decode(pair.substring(eq + 1).trim(), StandardCharsets.UTF_8));
    }
    return out;
  }

  private static String get(Map<String, String> env, String name) {
    String logs = env.get(LOGS_PREFIX + name);
    if (logs != null && !logs.isBlank()) {
      return logs.trim();
    }
    String general = env.get(PREFIX + name);
    return general == null || general.isBlank() ? null : general.trim();
  }

  private static Path path(String value) {
    return value == null ? null : Path.of(value);
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }
}
