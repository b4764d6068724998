package io.kubewarden.networkenforcer.ingest.transport;

import io.grpc.Grpc;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.TlsServerCredentials;
import java.nio.file.Path;

/** Real Netty gRPC servers on a free loopback port, with TLS from certificate files. */
public final class TestServers {
  private TestServers() {}

  public static Server mutualTls(Path certDir, ServerServiceDefinition service) throws Exception {
    TlsMaterial material = TlsMaterialLoader.fromDirectory(certDir);
    TlsServerCredentials credentials = (TlsServerCredentials) TlsServerCredentials.newBuilder()
        .keyManager(material.keyManagers()).trustManager(material.trustManagers())
        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE).build();
    return Grpc.newServerBuilderForPort(0, credentials).addService(service).build().start();
  }

  /** TLS where only the server authenticates (asks for no client certificate). */
  public static Server serverTls(Path certDir, ServerServiceDefinition service) throws Exception {
    TlsMaterial material = TlsMaterialLoader.fromDirectory(certDir);
    TlsServerCredentials credentials = (TlsServerCredentials) TlsServerCredentials.newBuilder()
        .keyManager(material.keyManagers()).build();
    return Grpc.newServerBuilderForPort(0, credentials).addService(service).build().start();
  }
}
