package io.kubewarden.networkenforcer.ingest.ztunnel;

import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;

/**
 * The OTLP receiver fluent-bit sends ztunnel logs to.
 *
 * @param grpcPort OTLP/gRPC ({@code controller.provider.istio.endpoint}, 4317)
 * @param httpPort OTLP/HTTP {@code /v1/logs} (4318), for fluent-bit's silent HTTP/1.1 fallback; 0
 *     turns it off
 * @param tls our server certificate and the CA of client certificates ({@code insecure}: plain
 *     text, chosen explicitly)
 * @param clientName the name in fluent-bit's client certificate, the only client accepted over TLS
 *     (the chart's {@code controller.provider.istio.tls.clientName}); unused in plain text
 */
public record OtlpSettings(int grpcPort, int httpPort, TlsSettings tls, String clientName) {
  /** The name the chart's fluent-bit certificate carries in the release namespace. */
  public static String fluentBitName(String namespace) {
    return "fluent-bit." + namespace;
  }
}
