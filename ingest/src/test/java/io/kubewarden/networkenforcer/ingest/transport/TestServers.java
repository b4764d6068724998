package io.kubewarden.networkenforcer.ingest.transport;

import io.grpc.Grpc;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.TlsServerCredentials;
import java.nio.file.Path;
import java.time.Duration;

/** Real Netty gRPC servers on a free loopback port, with TLS from certificate files. */
public final class TestServers {
  private TestServers() {}

  public static Server mutualTls(Path certDir, ServerServiceDefinition service) throws Exception {
    ServerTls tls = ServerTls.fromDirectory(certDir, true, Duration.ZERO);
    TlsServerCredentials credentials =
        (TlsServerCredentials)
            TlsServerCredentials.newBuilder()
                .keyManager(tls.keyManager())
                .trustManager(tls.trustManager())
                .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                .build();
    return Grpc.newServerBuilderForPort(0, credentials).addService(service).build().start();
  }

  /** TLS where only the server authenticates (asks for no client certificate). */
  public static Server serverTls(Path certDir, ServerServiceDefinition service) throws Exception {
    ServerTls tls = ServerTls.fromDirectory(certDir, false, Duration.ZERO);
    TlsServerCredentials credentials =
        (TlsServerCredentials)
            TlsServerCredentials.newBuilder().keyManager(tls.keyManager()).build();
    return Grpc.newServerBuilderForPort(0, credentials).addService(service).build().start();
  }
}
