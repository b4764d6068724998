package io.kubewarden.networkenforcer.ingest.goldmane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.Action;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowStreamRequest;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.ScriptedStreamService;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TestServers;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialLoader;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Goldmane client against our own Flows server (same path and field numbers) over mutual TLS.
 */
class GoldmaneSourceTest {
  @TempDir Path dir;

  private final List<FlowRecord> published = new CopyOnWriteArrayList<>();
  private final List<String> deadLetters = new CopyOnWriteArrayList<>();
  private Server server;
  private GoldmaneSource source;

  @AfterEach
  void tearDown() {
    if (source != null) {
      source.close();
    }
    if (server != null) {
      server.shutdownNow();
    }
  }

  private static StreamSettings settings(String target, TlsSettings tls) {
    return new StreamSettings(
        target, tls, Duration.ofMillis(50), Duration.ofMillis(400), Keepalive.grpcGoCompatible());
  }

  private FlowIntake intake() {
    return new FlowIntake(
        List.of(published::add),
        (s, reason, payload, e) -> deadLetters.add(reason),
        new IngestMetrics(new SimpleMeterRegistry()));
  }

  @Test
  void streamsAllowedAndDeniedFlowsAndResumesAfterTheServerEndsTheStream() throws Exception {
    TestCertificates ca = TestCertificates.newCa("tigera-ca");
    Path serverCerts =
        ca.issue(
            dir.resolve("server"),
            "goldmane",
            List.of("goldmane.calico-system.svc", "localhost"),
            List.of("127.0.0.1"),
            false);
    Path clientCerts =
        ca.issue(dir.resolve("client"), "network-enforcer", List.of(), List.of(), false);
    ScriptedStreamService<FlowStreamRequest> flows =
        new ScriptedStreamService<>(
            "goldmane.Flows", "goldmane.Flows/Stream", FlowStreamRequest.getDefaultInstance());
    server = TestServers.mutualTls(serverCerts, flows.definition());
    List<String> lines = Files.readAllLines(Fixtures.file("goldmane-flows.jsonl"));

    source =
        new GoldmaneSource(
            settings(
                "localhost:" + server.getPort(),
                TlsSettings.fromDirectory(TlsMode.issuer, clientCerts, null)),
            new TlsMaterialLoader(null),
            new WorkloadResolver(Fixtures.clusterState()),
            intake(),
            Clock.systemUTC());
    source.start();

    StreamObserver<byte[]> first = flows.nextCall();
    FlowStreamRequest request = flows.requests().get(0);
    assertThat(request.getStartTimeGte()).isZero();
    assertThat(request.getFilter().getActionsList()).containsExactly(Action.Allow, Action.Deny);
    first.onNext(GoldmaneJson.decode(lines.get(0)).toByteArray()); // Src copy: not counted
    first.onNext(GoldmaneJson.decode(lines.get(1)).toByteArray()); // Dst copy
    first.onNext("definitely not protobuf".getBytes());
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> published.size() == 1 && deadLetters.size() == 1);
    await().atMost(Duration.ofSeconds(20)).until(source::isReady);

    first.onCompleted();
    StreamObserver<byte[]> second = flows.nextCall();
    FlowResult deny =
        GoldmaneJson.decode(
            lines
                .get(1)
                .replace("\"action\":\"Allow\"", "\"action\":\"Deny\"")
                .replace("\"reporter\":\"Dst\"", "\"reporter\":\"Src\""));
    second.onNext(deny.toByteArray());
    await().atMost(Duration.ofSeconds(20)).until(() -> published.size() == 2);
    assertThat(published.get(1).verdict()).isEqualTo(Verdict.DENIED);
    assertThat(source.connects()).isEqualTo(2);
    // Resumed after the last 15 s bucket seen (start 1785771600), not from "now".
    assertThat(flows.requests().get(1).getStartTimeGte()).isEqualTo(1785771601L);
    assertThat(flows.requests().get(1).getFilter().getActionsList())
        .containsExactly(Action.Allow, Action.Deny);
    assertThat(deadLetters.get(0)).startsWith("not a FlowResult");
  }

  @Test
  void insecureIsRefusedWithAMessageThatSaysWhatToUse() {
    assertThatThrownBy(
            () ->
                new GoldmaneSource(
                    settings("localhost:1", TlsSettings.insecure()),
                    new TlsMaterialLoader(null),
                    new WorkloadResolver(Fixtures.clusterState()),
                    intake(),
                    Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("mutual TLS")
        .hasMessageContaining("existingSecret");
  }
}
