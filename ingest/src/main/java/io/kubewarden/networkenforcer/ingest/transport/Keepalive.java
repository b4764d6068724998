package io.kubewarden.networkenforcer.ingest.transport;

import java.time.Duration;

/**
 * Client keepalive. Hubble Relay and Goldmane are grpc-go servers whose default enforcement answers
 * pings more frequent than every 5 minutes with GOAWAY too_many_pings, so we ping less often than
 * that and only while a stream is open.
 */
public record Keepalive(Duration time, Duration timeout) {
  public static Keepalive grpcGoCompatible() {
    return new Keepalive(Duration.ofMinutes(6), Duration.ofSeconds(20));
  }
}
