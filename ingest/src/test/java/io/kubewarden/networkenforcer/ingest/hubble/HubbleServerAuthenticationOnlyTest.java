package io.kubewarden.networkenforcer.ingest.hubble;

import static io.kubewarden.networkenforcer.ingest.hubble.RelayFixture.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.transport.ReconnectingStream;
import io.kubewarden.networkenforcer.ingest.transport.ScriptedStreamService;
import io.kubewarden.networkenforcer.ingest.transport.TestServers;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialException;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialLoader;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A Hubble Relay with TLS but without client authentication (Cilium's relay TLS with mTLS off): the
 * ingest trusts the relay's CA from a directory holding only {@code ca.crt} and presents no
 * certificate. Real gRPC, real TLS handshakes.
 */
class HubbleServerAuthenticationOnlyTest {
  @TempDir Path dir;

  private final List<FlowRecord> published = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private Server server;
  private HubbleSource source;

  @AfterEach
  void tearDown() {
    if (source != null) {
      source.close();
    }
    if (server != null) {
      server.shutdownNow();
    }
  }

  @Test
  void streamsWithOnlyTheRelaysCaAndNoClientCertificate() throws Exception {
    TestCertificates ca = TestCertificates.newCa("hubble-ca");
    Path serverCerts = RelayFixture.serverCerts(ca, dir);
    ScriptedStreamService<GetFlowsRequest> observer = RelayFixture.observer();
    server = TestServers.serverTls(serverCerts, observer.definition());
    Path caOnly = Files.createDirectories(dir.resolve("ca-only"));
    Files.writeString(caOnly.resolve("ca.crt"), ca.caPem());

    start(RelayFixture.existingSecret(caOnly));

    StreamObserver<byte[]> call = observer.nextCall();
    call.onNext(fixture(RelayFixture.fixtureLines(), 1));
    await().atMost(Duration.ofSeconds(20)).until(() -> published.size() == 1 && source.isReady());
    assertThat(published.get(0).dst().workloadName()).isEqualTo("http-server");
  }

  @Test
  void aRelayOfAnotherCaIsNotTrusted() throws Exception {
    TestCertificates ca = TestCertificates.newCa("hubble-ca");
    Path serverCerts = RelayFixture.serverCerts(ca, dir);
    ScriptedStreamService<GetFlowsRequest> observer = RelayFixture.observer();
    server = TestServers.serverTls(serverCerts, observer.definition());
    Path otherCa = Files.createDirectories(dir.resolve("other-ca"));
    Files.writeString(otherCa.resolve("ca.crt"), TestCertificates.newCa("someone-else").caPem());

    ch.qos.logback.classic.Logger log =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(ReconnectingStream.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
        new ch.qos.logback.core.read.ListAppender<>();
    logged.start();
    log.addAppender(logged);
    try {
      start(RelayFixture.existingSecret(otherCa));

      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  registry.find("network.enforcer.ingest.stream.reconnects").counter() != null
                      && registry.get("network.enforcer.ingest.stream.reconnects").counter().count()
                          >= 2);
      assertThat(source.isReady()).isFalse();
      assertThat(observer.requests()).isEmpty();
      // The failure says which relay, and which setting names it.
      assertThat(List.copyOf(logged.list))
          .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
          .anySatisfy(
              m ->
                  assertThat(m)
                      .contains(
                          "Hubble Relay localhost:"
                              + server.getPort()
                              + " (--hubble-endpoint, NE_HUBBLE_ENDPOINT)")
                      .contains("failed"));
    } finally {
      log.detachAppender(logged);
    }
  }

  @Test
  void aCertificateWithoutItsKeyIsAMistakeNotServerOnlyTls() throws Exception {
    Path certs =
        TestCertificates.newCa("ca")
            .issue(dir.resolve("half"), "ingest", List.of(), List.of(), true);
    Files.delete(certs.resolve("tls.key"));
    assertThatThrownBy(() -> TlsMaterialLoader.fromDirectory(certs))
        .isInstanceOf(TlsMaterialException.class)
        .hasMessageContaining("has tls.crt but no tls.key")
        .hasMessageContaining("neither to authenticate the server");
  }

  private void start(TlsSettings tls) {
    FlowIntake intake =
        new FlowIntake(
            List.of(published::add),
            (src, reason, payload, error) -> {},
            new IngestMetrics(registry));
    source = RelayFixture.source(server, tls, intake);
    source.start();
  }
}
