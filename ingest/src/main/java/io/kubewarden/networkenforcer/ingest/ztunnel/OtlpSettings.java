package io.kubewarden.networkenforcer.ingest.ztunnel;

import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;

/**
 * The OTLP receiver fluent-bit sends ztunnel logs to.
 *
 * @param grpcPort OTLP/gRPC ({@code controller.provider.istio.endpoint}, 4317)
 * @param httpPort OTLP/HTTP {@code /v1/logs} (4318), for fluent-bit's silent HTTP/1.1 fallback;
 *     0 turns it off
 * @param tls our server certificate (and the CA of client certificates)
 * @param requireClientCertificate ask fluent-bit for a client certificate signed by the CA
 */
public record OtlpSettings(int grpcPort, int httpPort, TlsSettings tls, boolean requireClientCertificate) {}
