package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.IngestConfig;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node-local ingest: one reader per node, each following only its node's Hubble server (the agent's
 * Observer over mutual TLS, the server certificate Cilium's wildcard {@code
 * *.<cluster>.hubble-grpc.cilium.io}, checked against the node's own name). The multi-node capture,
 * split by the node that reported each record, gives exactly the flows one Relay reader gives for
 * the whole capture: an allowed connection between two nodes is published once, by the source's
 * node, though both nodes report it. The capture was taken through Relay and lacks two egress
 * copies (a pod on a third node; the source side of an L7-redirected call); they are made from
 * their ingress copies here, as the source's node reports them.
 */
class NodeLocalHubbleTest {
  private static final String CLUSTER = "kind-kind";

  @TempDir Path dir;

  private final List<Server> servers = new ArrayList<>();
  private final List<HubbleSource> sources = new ArrayList<>();

  @AfterEach
  void tearDown() {
    sources.forEach(HubbleSource::close);
    servers.forEach(Server::shutdownNow);
  }

  @Test
  void eachNodesReaderPublishesItsShareAndTogetherTheyEqualOneRelayReader() throws Exception {
    List<String> lines = Files.readAllLines(Fixtures.capture("hubble-multinode.jsonl"));
    Map<String, List<GetFlowsResponse>> byNode = new LinkedHashMap<>();
    for (String line : lines) {
      JsonNode tree = Json.mapper().readTree(line);
      String node = tree.path("flow").path("node_name").asText(tree.path("node_name").asText(""));
      if (!node.isEmpty()) {
        byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(HubbleJson.decode(line, tree));
      }
    }
    byNode
        .computeIfAbsent("kind-kind/kind-worker3", n -> new ArrayList<>())
        .add(egressCopy(lines.get(8), "kind-kind/kind-worker3", 3101));
    byNode
        .get("kind-kind/kind-worker")
        .add(egressCopy(lines.get(10), "kind-kind/kind-worker", 1201));

    TestCertificates ca = TestCertificates.newCa("cilium-ca");
    // What Cilium's chart issues: one wildcard for every agent of the cluster, and Relay's client
    // certificate.
    Path serverCerts =
        ca.issue(
            dir.resolve("server"),
            "*." + CLUSTER + ".hubble-grpc.cilium.io",
            List.of("*." + CLUSTER + ".hubble-grpc.cilium.io"),
            List.of(),
            false);
    Path clientCerts =
        ca.issue(dir.resolve("client"), "*.hubble-relay.cilium.io", List.of(), List.of(), true);

    Map<String, List<FlowRecord>> publishedBy = new LinkedHashMap<>();
    Map<String, SimpleMeterRegistry> registries = new LinkedHashMap<>();
    for (Map.Entry<String, List<GetFlowsResponse>> node : byNode.entrySet()) {
      ScriptedStreamService<GetFlowsRequest> observer =
          new ScriptedStreamService<>(
              "observer.Observer",
              "observer.Observer/GetFlows",
              GetFlowsRequest.getDefaultInstance());
      Server server = TestServers.mutualTls(serverCerts, observer.definition());
      servers.add(server);
      String nodeName = node.getKey().substring(node.getKey().indexOf('/') + 1);
      IngestConfig config =
          IngestConfig.defaults(Provider.cilium)
              .withHubble(
                  new StreamSettings(
                      "hubble-relay.kube-system.svc:443",
                      TlsSettings.fromDirectory(
                          TlsMode.existingSecret, clientCerts, "ui.hubble-relay.cilium.io"),
                      Duration.ofMillis(50),
                      Duration.ofMillis(400),
                      Keepalive.grpcGoCompatible()))
              .withHubbleNodeLocal(
                  new NodeLocalHubble(nodeName, "127.0.0.1", server.getPort(), CLUSTER))
              .validate();
      assertThat(config.hubble().target()).isEqualTo("127.0.0.1:" + server.getPort());
      assertThat(config.hubble().tls().serverName())
          .isEqualTo(nodeName + ".kind-kind.hubble-grpc.cilium.io");

      List<FlowRecord> published = new CopyOnWriteArrayList<>();
      publishedBy.put(nodeName, published);
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      registries.put(nodeName, registry);
      FlowIntake intake =
          new FlowIntake(
              List.of(published::add),
              (src, reason, payload, error) -> {},
              new IngestMetrics(registry));
      HubbleSource source =
          new HubbleSource(
              config.hubble(),
              config.hubbleNodeLocal(),
              new TlsMaterialLoader(null),
              new WorkloadResolver(new ClusterIndex()),
              intake,
              Clock.systemUTC());
      sources.add(source);
      source.start();
      StreamObserver<byte[]> call = observer.nextCall();
      for (GetFlowsResponse r : node.getValue()) {
        call.onNext(r.toByteArray());
      }
    }
    // Every response of every node is taken (published or dropped with a reason) before comparing.
    for (Map.Entry<String, List<GetFlowsResponse>> node : byNode.entrySet()) {
      String nodeName = node.getKey().substring(node.getKey().indexOf('/') + 1);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> handled(registries.get(nodeName)) == node.getValue().size());
    }

    // One Relay reader of the same records, each node's in the order it reported them.
    HubbleFlowParser relay =
        new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());
    List<String> relayFlows = new ArrayList<>();
    for (List<GetFlowsResponse> node : byNode.values()) {
      for (GetFlowsResponse r : node) {
        relay.parse(r).records().forEach(f -> relayFlows.add(connection(f)));
      }
    }
    List<String> nodeLocalFlows =
        publishedBy.values().stream()
            .flatMap(List::stream)
            .map(NodeLocalHubbleTest::connection)
            .toList();
    // Four connections, debug-x7k2p's two by its labels, and the HTTP request on one of them (the
    // L7
    // record at backend's node).
    assertThat(relayFlows).hasSize(7);
    assertThat(nodeLocalFlows).containsExactlyInAnyOrderElementsOf(relayFlows);
    // Who published what: the source's node its allowed calls, also those the other node saw.
    assertThat(publishedBy.get("kind-worker").stream().map(NodeLocalHubbleTest::connection))
        .containsExactlyInAnyOrder(
            "shop/frontend-5d8f7b9c6d-x7k2p>shop/backend-6c9d8f7b54-q2w4z:8080/TCP/FORWARDED",
            "shop/frontend-5d8f7b9c6d-x7k2p>shop/backend-6c9d8f7b54-q2w4z:9090/TCP/FORWARDED",
            "shop/debug-x7k2p>shop/backend-6c9d8f7b54-q2w4z:8080/TCP/FORWARDED");
    // debug-x7k2p (a lone suffix names no workload) is known by its labels, as through Relay; its
    // deny stays with the node that enforced it. The server's node publishes the request its proxy
    // saw, on the connection the source's node published.
    assertThat(publishedBy.get("kind-worker2").stream().map(NodeLocalHubbleTest::connection))
        .containsExactlyInAnyOrder(
            "shop/backend-6c9d8f7b54-q2w4z>shop/db-0:5432/TCP/FORWARDED",
            "shop/debug-x7k2p>shop/db-0:5432/TCP/DENIED",
            "shop/frontend-5d8f7b9c6d-x7k2p>shop/backend-6c9d8f7b54-q2w4z:9090/TCP/FORWARDED");
    assertThat(publishedBy.get("kind-worker2"))
        .filteredOn(f -> f.http() != null)
        .singleElement()
        .satisfies(
            f -> assertThat(f.http()).isEqualTo(new HttpRequest("GET", "/orders", false, true)));
    assertThat(publishedBy.get("kind-worker3").stream().map(NodeLocalHubbleTest::connection))
        .containsExactly(
            "shop/worker-7f6d5c4b9-n8m2x>shop/backend-6c9d8f7b54-q2w4z:8080/TCP/FORWARDED");
  }

  /** Responses the intake took: published, dropped with a reason, or dead-lettered. */
  private static long handled(SimpleMeterRegistry registry) {
    return (long)
            registry.find("network.enforcer.ingest.flows.dropped").counters().stream()
                .mapToDouble(c -> c.count())
                .sum()
        + (long)
            registry.find("network.enforcer.ingest.flows.accepted").counters().stream()
                .mapToDouble(c -> c.count())
                .sum()
        + (long)
            registry.find("network.enforcer.ingest.input.invalid").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
  }

  private static String connection(FlowRecord f) {
    return f.src().namespace()
        + "/"
        + f.src().podName()
        + ">"
        + f.dst().namespace()
        + "/"
        + f.dst().podName()
        + ":"
        + f.dstPort()
        + "/"
        + f.protocol()
        + "/"
        + f.verdict();
  }

  /**
   * What the source's node reports of a connection the capture has only the destination's copy of.
   */
  private static GetFlowsResponse egressCopy(String ingressLine, String node, int sourceEndpointId)
      throws Exception {
    ObjectNode tree = (ObjectNode) Json.mapper().readTree(ingressLine);
    ObjectNode flow = (ObjectNode) tree.get("flow");
    flow.put("node_name", node);
    flow.put("verdict", "FORWARDED");
    flow.put("traffic_direction", "EGRESS");
    flow.put("trace_observation_point", "TO_STACK");
    ((ObjectNode) flow.get("source")).put("ID", sourceEndpointId);
    ((ObjectNode) flow.get("destination")).put("ID", 0);
    return HubbleJson.decode(tree.toString(), tree);
  }
}
