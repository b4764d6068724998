package io.kubewarden.networkenforcer.ingest.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Empty;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsServerCredentials;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key, chain and CA of both ends of a mutual-TLS gRPC hop are rotated while a stream is open: the
 * open stream keeps flowing, new connections use only the new material, and a chain written before
 * its key is never served with the old key.
 */
class ReloadingTlsTest {
  private static final String METHOD = "test.Feed/Follow";
  private static final MethodDescriptor<Empty, byte[]> FOLLOW =
      MethodDescriptor.<Empty, byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName(METHOD)
          .setRequestMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .setResponseMarshaller(RawBytes.INSTANCE)
          .build();
  private static final Duration QUICK = Duration.ofMillis(100);

  @TempDir Path dir;

  private Server server;
  private ServerTls serverTls;
  private ReloadingTls clientTls;

  @AfterEach
  void stop() {
    if (server != null) {
      server.shutdownNow();
    }
    if (serverTls != null) {
      serverTls.close();
    }
    if (clientTls != null) {
      clientTls.close();
    }
  }

  /** Copies the files of a freshly issued set over the live ones, the chain first. */
  private static void rotate(Path issued, Path live, String... files) throws Exception {
    for (String file : files) {
      Path staged = live.resolve("." + file + ".new");
      Files.copy(issued.resolve(file), staged, StandardCopyOption.REPLACE_EXISTING);
      Files.move(
          staged,
          live.resolve(file),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    }
  }

  private ManagedChannel channel(ReloadingTls tls) {
    return GrpcChannels.open(
        "localhost:" + server.getPort(),
        TlsSettings.fromDirectory(TlsMode.issuer, dir, null),
        tls,
        Keepalive.grpcGoCompatible());
  }

  /** The server certificate a new TLS connection gets. */
  private X509Certificate served(ReloadingTls client) throws Exception {
    try (SSLSocket socket =
        (SSLSocket)
            client.sslContext().getSocketFactory().createSocket("localhost", server.getPort())) {
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }

  private static String trustedIssuers(ReloadingTls tls) {
    StringBuilder names = new StringBuilder();
    for (X509Certificate ca : ((X509TrustManager) tls.trustManager()).getAcceptedIssuers()) {
      names.append(ca.getSubjectX500Principal().getName()).append(';');
    }
    return names.toString();
  }

  private static TlsMaterial read(Path certs, String chain, String key, String ca)
      throws Exception {
    return new TlsMaterial(
        Files.readAllBytes(certs.resolve(chain)),
        Files.readAllBytes(certs.resolve(key)),
        Files.readAllBytes(certs.resolve(ca)));
  }

  @Test
  void rotatingKeyChainAndCaKeepsTheOpenStreamAndServesOnlyWholePairs() throws Exception {
    TestCertificates caA = TestCertificates.newCa("ca-a");
    Path serverLive =
        caA.issue(dir.resolve("server"), "server-1", List.of("localhost"), List.of(), false);
    Path clientLive = caA.issue(dir.resolve("client"), "client-1", List.of(), List.of(), true);
    TlsMaterial oldClient = read(clientLive, "tls.crt", "tls.key", "ca.crt");

    ScriptedStreamService<Empty> feed =
        new ScriptedStreamService<>("test.Feed", METHOD, Empty.getDefaultInstance());
    serverTls = ServerTls.fromDirectory(serverLive, true, QUICK);
    server =
        Grpc.newServerBuilderForPort(
                0,
                TlsServerCredentials.newBuilder()
                    .keyManager(serverTls.keyManager())
                    .trustManager(serverTls.trustManager())
                    .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                    .build())
            .addService(feed.definition())
            .build()
            .start();
    clientTls =
        ReloadingTls.start(
            "client files",
            () -> TlsMaterialLoader.fromDirectory(clientLive),
            ReloadingTls.Role.CLIENT,
            QUICK);

    ManagedChannel first = channel(clientTls);
    Iterator<byte[]> openStream =
        ClientCalls.blockingServerStreamingCall(
            first, FOLLOW, CallOptions.DEFAULT, Empty.getDefaultInstance());
    StreamObserver<byte[]> openCall = feed.nextCall();
    openCall.onNext("one".getBytes(StandardCharsets.UTF_8));
    assertThat(new String(openStream.next(), StandardCharsets.UTF_8)).isEqualTo("one");
    assertThat(served(clientTls).getSubjectX500Principal().getName()).isEqualTo("CN=server-1");

    // Both ends get a new CA, and a key and chain from it, while the stream stays open.
    TestCertificates caB = TestCertificates.newCa("ca-b");
    Path serverNext =
        caB.issue(dir.resolve("server-next"), "server-2", List.of("localhost"), List.of(), false);
    Path clientNext = caB.issue(dir.resolve("client-next"), "client-2", List.of(), List.of(), true);
    rotate(serverNext, serverLive, "tls.crt", "tls.key", "ca.crt");
    rotate(clientNext, clientLive, "tls.crt", "tls.key", "ca.crt");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(trustedIssuers(clientTls)).isEqualTo("CN=ca-b;");
              assertThat(trustedIssuers(serverTls.material())).isEqualTo("CN=ca-b;");
              assertThat(served(clientTls).getSubjectX500Principal().getName())
                  .isEqualTo("CN=server-2");
            });

    openCall.onNext("two".getBytes(StandardCharsets.UTF_8));
    assertThat(new String(openStream.next(), StandardCharsets.UTF_8)).isEqualTo("two");

    ManagedChannel second = channel(clientTls);
    Iterator<byte[]> newStream =
        ClientCalls.blockingServerStreamingCall(
            second, FOLLOW, CallOptions.DEFAULT, Empty.getDefaultInstance());
    feed.nextCall().onNext("three".getBytes(StandardCharsets.UTF_8));
    assertThat(new String(newStream.next(), StandardCharsets.UTF_8)).isEqualTo("three");
    assertThat(served(clientTls).getIssuerX500Principal().getName()).isEqualTo("CN=ca-b");

    // The old client trusts only ca-a, and its certificate is of ca-a: refused both ways now.
    ReloadingTls stale =
        ReloadingTls.start("old client", () -> oldClient, ReloadingTls.Role.CLIENT, Duration.ZERO);
    ManagedChannel staleChannel = channel(stale);
    assertThatThrownBy(
            () ->
                ClientCalls.blockingServerStreamingCall(
                        staleChannel, FOLLOW, CallOptions.DEFAULT, Empty.getDefaultInstance())
                    .next())
        .isInstanceOf(StatusRuntimeException.class);
    TlsMaterial oldCertNewTrust =
        new TlsMaterial(
            oldClient.certificateChain(),
            oldClient.privateKey(),
            Files.readAllBytes(clientNext.resolve("ca.crt")));
    ReloadingTls oldCert =
        ReloadingTls.start(
            "old cert", () -> oldCertNewTrust, ReloadingTls.Role.CLIENT, Duration.ZERO);
    ManagedChannel oldCertChannel = channel(oldCert);
    assertThatThrownBy(
            () ->
                ClientCalls.blockingServerStreamingCall(
                        oldCertChannel, FOLLOW, CallOptions.DEFAULT, Empty.getDefaultInstance())
                    .next())
        .isInstanceOf(StatusRuntimeException.class);
    assertThat(feed.requests()).hasSize(2);

    // A renewal caught half way, the new chain next to the old key, is never served.
    Path serverThird =
        caB.issue(dir.resolve("server-third"), "server-3", List.of("localhost"), List.of(), false);
    long generation = serverTls.material().generation();
    rotate(serverThird, serverLive, "tls.crt");
    assertThat(serverTls.material().reload()).isFalse();
    assertThat(serverTls.material().generation()).isEqualTo(generation);
    assertThat(served(clientTls).getSubjectX500Principal().getName()).isEqualTo("CN=server-2");
    rotate(serverThird, serverLive, "tls.key");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(served(clientTls).getSubjectX500Principal().getName())
                    .isEqualTo("CN=server-3"));
    assertThat(serverTls.material().generation()).isEqualTo(generation + 1);

    openCall.onNext("four".getBytes(StandardCharsets.UTF_8));
    assertThat(new String(openStream.next(), StandardCharsets.UTF_8)).isEqualTo("four");
    for (ManagedChannel c : List.of(first, second, staleChannel, oldCertChannel)) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    stale.close();
    oldCert.close();
  }

  @Test
  void aKeyThatDoesNotBelongToTheChainIsRefusedAtStart() throws Exception {
    TestCertificates ca = TestCertificates.newCa("ca");
    Path one = ca.issue(dir.resolve("one"), "one", List.of("localhost"), List.of(), false);
    Path two = ca.issue(dir.resolve("two"), "two", List.of("localhost"), List.of(), false);
    Files.copy(two.resolve("tls.key"), one.resolve("tls.key"), StandardCopyOption.REPLACE_EXISTING);
    assertThatThrownBy(() -> ServerTls.fromDirectory(one, true, Duration.ZERO))
        .isInstanceOf(TlsMaterialException.class)
        .hasMessageContaining("private key does not belong to the certificate CN=one");
  }
}
