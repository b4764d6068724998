package io.kubewarden.networkenforcer.ingest.hubble;

import com.google.protobuf.util.JsonFormat;
import io.grpc.Server;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.ScriptedStreamService;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialLoader;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The Hubble Relay stand-in the source tests talk to, in one place: its certificates as Cilium
 * names them, its Observer service scripted call by call, the source's settings to reach it and the
 * captured responses it sends.
 */
final class RelayFixture {
  /** The name the source checks the relay's certificate against, as Cilium's chart sets it. */
  static final String SERVER_NAME = "ui.hubble-relay.cilium.io";

  private RelayFixture() {}

  /** The relay's certificate (for {@code *.hubble-relay.cilium.io}) in {@code dir/server}. */
  static Path serverCerts(TestCertificates ca, Path dir) throws Exception {
    return ca.issue(
        dir.resolve("server"),
        "*.hubble-relay.cilium.io",
        List.of("*.hubble-relay.cilium.io"),
        List.of(),
        false);
  }

  /** A client certificate of the same CA in {@code dir/client}, as Cilium issues Hubble UI's. */
  static Path clientCerts(TestCertificates ca, Path dir) throws Exception {
    return ca.issue(
        dir.resolve("client"), "ingest.hubble-ui.cilium.io", List.of(), List.of(), true);
  }

  /** Relay's Observer service; each GetFlows call is handed to the test to script. */
  static ScriptedStreamService<GetFlowsRequest> observer() {
    return new ScriptedStreamService<>(
        "observer.Observer", "observer.Observer/GetFlows", GetFlowsRequest.getDefaultInstance());
  }

  /** The TLS settings of certificates mounted from a Secret, checked against the relay's name. */
  static TlsSettings existingSecret(Path certs) {
    return TlsSettings.fromDirectory(TlsMode.existingSecret, certs, SERVER_NAME);
  }

  /** How a source reaches the relay: quick reconnects, so a test sees several in seconds. */
  static StreamSettings settings(Server server, TlsSettings tls) {
    return new StreamSettings(
        "localhost:" + server.getPort(),
        tls,
        Duration.ofMillis(50),
        Duration.ofMillis(400),
        Keepalive.grpcGoCompatible());
  }

  /** A source on the relay resolving against the sample cluster state; not started. */
  static HubbleSource source(Server server, TlsSettings tls, FlowIntake intake) {
    return new HubbleSource(
        settings(server, tls),
        new TlsMaterialLoader(null),
        new WorkloadResolver(Fixtures.clusterState()),
        intake,
        Clock.systemUTC());
  }

  /** The lines of the captured Hubble responses ({@code hubble-flows.jsonl}). */
  static List<String> fixtureLines() throws Exception {
    return Files.readAllLines(Fixtures.file("hubble-flows.jsonl"));
  }

  /** One captured line as the relay sends it on the wire. */
  static byte[] fixture(List<String> lines, int index) throws Exception {
    GetFlowsResponse.Builder b = GetFlowsResponse.newBuilder();
    JsonFormat.parser().ignoringUnknownFields().merge(lines.get(index), b);
    return b.build().toByteArray();
  }
}
