package io.kubewarden.networkenforcer.ingest.transport;

import java.time.Duration;

/**
 * How a gRPC flow source connects.
 *
 * @param target {@code host:port} (or any gRPC target URI)
 * @param tls where the certificates come from
 * @param initialBackoff first wait after a failure
 * @param maxBackoff longest wait between attempts
 * @param keepalive client keepalive pings
 */
public record StreamSettings(
    String target,
    TlsSettings tls,
    Duration initialBackoff,
    Duration maxBackoff,
    Keepalive keepalive) {}
