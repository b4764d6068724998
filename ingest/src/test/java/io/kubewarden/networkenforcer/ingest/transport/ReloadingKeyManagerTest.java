package io.kubewarden.networkenforcer.ingest.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.TlsServerCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A renewed server certificate is served to new connections without restarting the gRPC server. */
class ReloadingKeyManagerTest {
  @TempDir Path dir;

  private static String servedCommonName(int port, TlsMaterial client) throws Exception {
    try (SSLSocket socket = (SSLSocket) client.sslContext().getSocketFactory().createSocket("localhost", port)) {
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }
  }

  @Test
  void newHandshakesGetTheRenewedCertificate() throws Exception {
    TestCertificates ca = TestCertificates.newCa("issuer-ca");
    Path live = ca.issue(dir.resolve("live"), "first", List.of("localhost"), List.of(), false);
    Path renewed = ca.issue(dir.resolve("renewed"), "second", List.of("localhost"), List.of(), false);
    TlsMaterial client = TlsMaterialLoader.fromDirectory(ca.issue(dir.resolve("client"), "c", List.of(), List.of(),
        false));
    ServerTls tls = ServerTls.fromDirectory(live, true, Duration.ZERO);
    Server server = Grpc.newServerBuilderForPort(0, TlsServerCredentials.newBuilder().keyManager(tls.keyManager())
        .trustManager(tls.trustManagers()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE).build())
        .addService(ServerServiceDefinition.builder("test.Nothing").build()).build().start();
    try {
      assertThat(servedCommonName(server.getPort(), client)).isEqualTo("CN=first");

      // cert-manager rewrites the mounted files.
      for (String file : List.of("tls.crt", "tls.key")) {
        Files.copy(renewed.resolve(file), live.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(live.resolve(file), FileTime.from(Instant.now().plusSeconds(60)));
      }
      assertThat(servedCommonName(server.getPort(), client)).isEqualTo("CN=second");

      // A half-written renewal keeps the working certificate.
      Files.writeString(live.resolve("tls.key"), "-----BEGIN PRIVATE KEY-----\ngarbage\n");
      Files.setLastModifiedTime(live.resolve("tls.key"), FileTime.from(Instant.now().plusSeconds(120)));
      assertThat(servedCommonName(server.getPort(), client)).isEqualTo("CN=second");
    } finally {
      server.shutdownNow();
    }
  }
}
