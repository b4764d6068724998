package io.kubewarden.networkenforcer.ingest.hubble;

import static io.kubewarden.networkenforcer.ingest.hubble.RelayFixture.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.util.Timestamps;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.transport.ScriptedStreamService;
import io.kubewarden.networkenforcer.ingest.transport.TestServers;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Hubble client against our own Observer server (same path and field numbers) over mutual TLS,
 * whose certificate is only valid for the Relay's wildcard name: the server-name override is what
 * makes the connection work.
 */
class HubbleSourceTest {
  @TempDir Path dir;

  private final List<FlowRecord> published = new CopyOnWriteArrayList<>();
  private final List<String> deadLetters = new CopyOnWriteArrayList<>();
  private SimpleMeterRegistry registry;
  private ScriptedStreamService<GetFlowsRequest> observer;
  private Server server;
  private HubbleSource source;
  private List<String> fixtureLines;
  private TestCertificates ca;

  @BeforeEach
  void setUp() throws Exception {
    ca = TestCertificates.newCa("hubble-ca");
    Path serverCerts = RelayFixture.serverCerts(ca, dir);
    observer = RelayFixture.observer();
    server = TestServers.mutualTls(serverCerts, observer.definition());
    fixtureLines = RelayFixture.fixtureLines();
    registry = new SimpleMeterRegistry();
  }

  @AfterEach
  void tearDown() {
    if (source != null) {
      source.close();
    }
    server.shutdownNow();
  }

  private HubbleSource start(TlsSettings tls) {
    FlowIntake intake =
        new FlowIntake(
            List.of(published::add),
            (src, reason, payload, error) -> deadLetters.add(reason),
            new IngestMetrics(registry));
    source = RelayFixture.source(server, tls, intake);
    source.start();
    return source;
  }

  @Test
  void aRestartedSourceAsksRelayForTheFlowsSinceItsResumePoint() throws Exception {
    Path clientCerts = RelayFixture.clientCerts(ca, dir);
    FlowIntake intake =
        new FlowIntake(
            List.of(published::add),
            (src, reason, payload, error) -> deadLetters.add(reason),
            new IngestMetrics(registry));
    source = RelayFixture.source(server, RelayFixture.existingSecret(clientCerts), intake);
    Instant resume = Instant.parse("2026-08-03T15:39:45.250Z");
    source.resumeFrom(resume);
    source.start();
    observer.nextCall();
    assertThat(observer.requests().get(0).getSince())
        .isEqualTo(Timestamps.fromMillis(resume.toEpochMilli()));
  }

  @Test
  void followsTheStreamSurvivesABreakAndGarbageAndResumes() throws Exception {
    Path clientCerts = RelayFixture.clientCerts(ca, dir);

    start(RelayFixture.existingSecret(clientCerts));

    StreamObserver<byte[]> first = observer.nextCall();
    assertThat(observer.requests().get(0).getFollow()).isTrue();
    first.onNext(fixture(fixtureLines, 0)); // node status
    first.onNext(fixture(fixtureLines, 1)); // http-client -> http-server SYN
    first.onNext(new byte[] {(byte) 0x0a, (byte) 0xff, 0x01}); // truncated garbage
    first.onNext(fixture(fixtureLines, 33)); // lost events: 42
    await().atMost(Duration.ofSeconds(20)).until(() -> published.size() == 1 && source.isReady());
    await().atMost(Duration.ofSeconds(20)).until(() -> deadLetters.size() == 1);
    assertThat(deadLetters.get(0)).startsWith("not a GetFlowsResponse");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                registry.find("network.enforcer.ingest.hubble.lost.events").counter() != null
                    && registry.get("network.enforcer.ingest.hubble.lost.events").counter().count()
                        == 42);

    // The relay goes away mid-stream; the client comes back by itself.
    first.onError(Status.UNAVAILABLE.withDescription("relay restarting").asRuntimeException());
    StreamObserver<byte[]> second = observer.nextCall();
    second.onNext(
        fixture(fixtureLines, 2)); // the same connection seen at the server's ingress: counted once
    second.onNext(fixture(fixtureLines, 3)); // a reply: skipped
    second.onNext(fixture(fixtureLines, 5)); // the next connection
    await().atMost(Duration.ofSeconds(20)).until(() -> published.size() == 2);
    assertThat(
            registry
                .get("network.enforcer.ingest.flows.dropped")
                .tag("reason", "duplicate-report")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(source.connects()).isEqualTo(2);
    assertThat(observer.requests()).hasSize(2).allSatisfy(r -> assertThat(r.getFollow()).isTrue());
    // The first call follows from now; the resumed one asks for what came after the last flow seen.
    assertThat(observer.requests().get(0).hasSince()).isFalse();
    GetFlowsResponse lastBeforeBreak = GetFlowsResponse.parseFrom(fixture(fixtureLines, 1));
    assertThat(observer.requests().get(1).getSince())
        .isEqualTo(lastBeforeBreak.getFlow().getTime());
    assertThat(published).extracting(r -> r.dst().workloadName()).containsOnly("http-server");
    assertThat(registry.get("network.enforcer.ingest.stream.reconnects").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("network.enforcer.ingest.input.invalid").counter().count())
        .isEqualTo(1);
    await().atMost(Duration.ofSeconds(20)).until(source::isReady);
  }

  @Test
  void aClientCertificateFromAnotherCaIsRejectedAndTheClientKeepsRetrying() throws Exception {
    TestCertificates other = TestCertificates.newCa("someone-else");
    Path clientCerts = other.issue(dir.resolve("client"), "intruder", List.of(), List.of(), true);
    // Trust the real server CA so only the client side of the handshake is wrong.
    Files.writeString(
        clientCerts.resolve("ca.crt"), Files.readString(dir.resolve("server/ca.crt")));

    start(RelayFixture.existingSecret(clientCerts));

    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                registry.find("network.enforcer.ingest.stream.reconnects").counter() != null
                    && registry.get("network.enforcer.ingest.stream.reconnects").counter().count()
                        >= 2);
    assertThat(source.isReady()).isFalse();
    assertThat(observer.requests()).isEmpty();
    assertThat(published).isEmpty();
  }
}
