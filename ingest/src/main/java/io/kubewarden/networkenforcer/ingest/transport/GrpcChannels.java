package io.kubewarden.networkenforcer.ingest.transport;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import java.util.concurrent.TimeUnit;

/** Builds client channels for the TLS modes. */
public final class GrpcChannels {
  /** Flow batches can be large; Hubble's own client allows this much. */
  private static final int MAX_INBOUND_MESSAGE_BYTES = 16 * 1024 * 1024;

  private GrpcChannels() {}

  public static ManagedChannel open(String target, TlsSettings settings, TlsMaterial material, Keepalive keepalive) {
    ChannelCredentials credentials;
    if (settings.isInsecure()) {
      credentials = InsecureChannelCredentials.create();
    } else {
      TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder().trustManager(material.trustManagers());
      if (material.hasKeyPair()) {
        tls.keyManager(material.keyManagers());
      }
      credentials = tls.build();
    }
    ManagedChannelBuilder<?> builder = Grpc.newChannelBuilder(target, credentials)
        .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
        .keepAliveTime(keepalive.time().toMillis(), TimeUnit.MILLISECONDS)
        .keepAliveTimeout(keepalive.timeout().toMillis(), TimeUnit.MILLISECONDS)
        .keepAliveWithoutCalls(false)
        .userAgent("network-enforcer-ingest");
    if (!settings.isInsecure() && settings.serverName() != null && !settings.serverName().isBlank()) {
      // Hubble Relay's certificate is for *.hubble-relay.cilium.io, not the Service name we dial.
      builder.overrideAuthority(settings.serverName());
    }
    return builder.build();
  }
}
