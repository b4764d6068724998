package io.kubewarden.networkenforcer.pipeline;

import static io.kubewarden.networkenforcer.pipeline.IngestCrashTest.FIRST_PORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.compose.HubbleRelayStandIn;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.pipeline.crash.ChildJvm;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aggregator's window is published on SIGTERM (issue 34, goal 3): the {@code ingest} command, a
 * process of its own with a 60 s aggregation window (the longest allowed), takes flows from a
 * Hubble Relay stand-in; none is on the flows topic while the window is open. The process is
 * stopped with SIGTERM, as the kubelet stops a pod, and nothing is started after it: every flow
 * must be on the topic exactly once when it has ended.
 */
class IngestSigtermTest {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String PREFIX = "ingest-sigterm.";
  private static final int FLOWS = 30;

  @TempDir Path dir;

  @Test
  void sigtermPublishesTheOpenAggregationWindowBeforeTheProcessEnds() throws Exception {
    Path logs = Files.createDirectories(Path.of("target", "crash-faults", "ingest-sigterm"));
    String template =
        Files.readAllLines(CliRun.sample("hubble-flows.jsonl")).stream()
            .filter(l -> l.startsWith("{\"flow\""))
            .findFirst()
            .orElseThrow();
    Path emptyCapture = Files.writeString(dir.resolve("empty.jsonl"), "");
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault();
        HubbleRelayStandIn relay = HubbleRelayStandIn.serve(emptyCapture, "127.0.0.1")) {
      KafkaSettings kafka =
          new KafkaSettings(broker.bootstrapServers(), PREFIX, 4, (short) 1, Map.of());
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
        admin
            .createTopics(kafka.topics().all().stream().map(t -> t.newTopic(4, (short) 1)).toList())
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      int probes = LoopbackPorts.free();
      int management = LoopbackPorts.free();
      List<String> args =
          List.of(
              "ingest",
              "--provider",
              "cilium",
              "--hubble-endpoint",
              "127.0.0.1:" + relay.port(),
              "--provider-tls-mode",
              "insecure",
              "--cluster-state",
              CliRun.sample("cluster-state.json").toString(),
              "--kafka-bootstrap-servers",
              broker.bootstrapServers(),
              "--kafka-topic-prefix",
              PREFIX,
              "--kafka-partitions",
              "4",
              "--kafka-replication-factor",
              "1",
              // The longest allowed, far longer than the steps below (the process is ready within
              // seconds): only the way out can publish the window.
              "--aggregation-window",
              "60s",
              "--management-port",
              String.valueOf(management),
              "--probe-port",
              String.valueOf(probes),
              "--management-auth",
              "none");
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      try (ChildJvm ingest =
          ChildJvm.start(
              "ingest",
              logs,
              Map.of(),
              "io.kubewarden.networkenforcer.cli.NetworkEnforcerCommand",
              args)) {
        await("ingest ready")
            .atMost(WAIT)
            .ignoreExceptions()
            .until(() -> IngestCrashTest.readyz(http, probes).statusCode() == 200);
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < FLOWS; i++) {
          // Each flow its own destination port, so none folds into another.
          ObjectNode line = (ObjectNode) json.readTree(template);
          ObjectNode flow = (ObjectNode) line.get("flow");
          flow.put("time", Instant.now().toString());
          flow.put("uuid", UUID.randomUUID().toString());
          ((ObjectNode) flow.get("l4").get("TCP")).put("destination_port", FIRST_PORT + i);
          relay.publish(json.writeValueAsString(line));
        }
        await("every flow taken into the aggregation window")
            .atMost(WAIT)
            .ignoreExceptions()
            .until(() -> accepted(http, management) == FLOWS);
        assertThat(recordsOnTopic(broker, kafka))
            .as("flows on the topic while the window is open")
            .isZero();

        ingest.terminate(Duration.ofSeconds(60));
        assertThat(ingest.alive()).isFalse();
      }
      // Nothing runs any more: what is on the topic was published on the way out.
      Map<Integer, Long> arrived = IngestCrashTest.awaitArrived(kafka, FLOWS);
      assertThat(arrived.keySet())
          .as("every flow's port")
          .isEqualTo(
              IntStream.range(FIRST_PORT, FIRST_PORT + FLOWS).boxed().collect(Collectors.toSet()));
      assertThat(arrived.values()).as("each flow once").allMatch(n -> n == 1L);
      assertThat(recordsOnTopic(broker, kafka)).as("records on the topic").isEqualTo(FLOWS);
    }
  }

  /** {@code network_enforcer_ingest_flows_accepted_total} of the cilium provider. */
  private static long accepted(HttpClient http, int port) throws Exception {
    HttpResponse<String> metrics =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return metrics
        .body()
        .lines()
        .filter(l -> l.startsWith("network_enforcer_ingest_flows_accepted_total{"))
        .filter(l -> l.contains("provider=\"cilium\""))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  /** Records on the flows topic: the sum of its partitions' end offsets (no transactions here). */
  private static long recordsOnTopic(EmbeddedKafkaBroker broker, KafkaSettings kafka)
      throws Exception {
    String topic = kafka.topics().flows().name();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      Map<TopicPartition, OffsetSpec> latest =
          IntStream.range(0, 4)
              .boxed()
              .collect(
                  Collectors.toMap(p -> new TopicPartition(topic, p), p -> OffsetSpec.latest()));
      return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
          .mapToLong(i -> i.offset())
          .sum();
    }
  }
}
