package io.kubewarden.networkenforcer.ingest.transport;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Builds client channels for the TLS modes. */
public final class GrpcChannels {
  /** How often a client re-reads its certificates (cert-manager renews well before expiry). */
  public static final Duration TLS_RELOAD_PERIOD = Duration.ofMinutes(1);

  /** Flow batches can be large; Hubble's own client allows this much. */
  private static final int MAX_INBOUND_MESSAGE_BYTES = 16 * 1024 * 1024;

  private GrpcChannels() {}

  public static ManagedChannel open(
      String target, TlsSettings settings, ReloadingTls tls, Keepalive keepalive) {
    ChannelCredentials credentials;
    if (settings.isInsecure()) {
      credentials = InsecureChannelCredentials.create();
    } else {
      // The managers reload key, chain and CA: every new connection of the channel uses what is
      // current.
      TlsChannelCredentials.Builder builder =
          TlsChannelCredentials.newBuilder().trustManager(tls.trustManager());
      if (tls.keyManager() != null) {
        builder.keyManager(tls.keyManager());
      }
      credentials = builder.build();
    }
    ManagedChannelBuilder<?> builder =
        Grpc.newChannelBuilder(target, credentials)
            .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
            .keepAliveTime(keepalive.time().toMillis(), TimeUnit.MILLISECONDS)
            .keepAliveTimeout(keepalive.timeout().toMillis(), TimeUnit.MILLISECONDS)
            .keepAliveWithoutCalls(false)
            .userAgent("network-enforcer-ingest");
    if (!settings.isInsecure()
        && settings.serverName() != null
        && !settings.serverName().isBlank()) {
      // Hubble Relay's certificate is for *.hubble-relay.cilium.io, not the Service name we dial.
      builder.overrideAuthority(settings.serverName());
    }
    return builder.build();
  }
}
