package io.kubewarden.networkenforcer.ingest.dumper;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleFlowParser;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleJson;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlowDumperTest {
  /**
   * Stands in for the Kubernetes check (tested on a real API server in the cli module): one token
   * passes.
   */
  private static final AccessCheck ONE_TOKEN =
      (authorization, path, method) ->
          "Bearer t0ken".equals(authorization)
              ? AccessCheck.Verdict.ALLOWED
              : new AccessCheck.Verdict(401, "no");

  private static HttpRequest.Builder authorized(URI uri) {
    return HttpRequest.newBuilder(uri).header("Authorization", "Bearer t0ken");
  }

  private static FlowRecord flow(int port) {
    FlowEndpoint ep = FlowEndpoint.builder().namespace("demo").podName("p").build();
    return new FlowRecord(
        Instant.parse("2026-08-03T15:40:00Z"),
        Provider.cilium,
        Protocol.TCP,
        port,
        ep,
        ep,
        null,
        null,
        1,
        null);
  }

  @Test
  void ringBufferKeepsTheNewestAndGetFlowDrainsItAsJsonLines() throws Exception {
    FlowDumper dumper = new FlowDumper(3);
    for (int port = 1; port <= 5; port++) {
      dumper.accept(flow(port));
    }
    assertThat(dumper.overwritten()).isEqualTo(2);
    try (FlowDumperServer server =
        new FlowDumperServer(dumper, new InetSocketAddress("127.0.0.1", 0), ONE_TOKEN).start()) {
      HttpClient client = HttpClient.newHttpClient();
      URI uri = URI.create("http://127.0.0.1:" + server.port() + "/flow");
      // Refused without the token; the refused request drains nothing (the three come below).
      HttpResponse<String> anonymous =
          client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(anonymous.headers().firstValue("WWW-Authenticate"))
          .contains("Bearer realm=\"network-enforcer\"");
      HttpResponse<String> first =
          client.send(authorized(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("Content-Type")).contains("application/x-ndjson");
      List<String> lines = Arrays.asList(first.body().split("\n"));
      assertThat(lines).hasSize(3);
      assertThat(
              lines.stream()
                  .map(
                      l -> {
                        try {
                          return Json.mapper().readValue(l, FlowRecord.class).dstPort();
                        } catch (Exception e) {
                          throw new AssertionError(e);
                        }
                      }))
          .containsExactly(3, 4, 5);

      HttpResponse<String> second =
          client.send(authorized(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(second.statusCode()).isEqualTo(200);
      assertThat(second.body()).isEmpty();
      HttpResponse<String> post =
          client.send(
              authorized(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }

  @Test
  void droppedRecordsComeWithTheirReasonOnlyWhenAskedFor() throws Exception {
    FlowDumper dumper = new FlowDumper(2);
    // Real shapes: a Hubble reply (JSON of hubble observe -o json) and a ztunnel text line.
    String reply =
        "{\"flow\":{\"verdict\":\"FORWARDED\",\"is_reply\":true,\"l4\":{\"TCP\":"
            + "{\"source_port\":8080,\"destination_port\":43210}}},\"node_name\":\"kind-worker\"}";
    dumper.dropped("hubble", DropReason.REPLY, () -> reply);
    dumper.dropped(
        "ztunnel",
        DropReason.IGNORED_LOG,
        () -> "2026-08-03T15:48:10.413052Z info access connection opened");
    dumper.accept(flow(80));
    try (FlowDumperServer server =
        new FlowDumperServer(dumper, new InetSocketAddress("127.0.0.1", 0), ONE_TOKEN).start()) {
      HttpClient client = HttpClient.newHttpClient();
      URI dropped = URI.create("http://127.0.0.1:" + server.port() + "/flow?dropped=true");
      List<String> lines =
          Arrays.asList(
              client
                  .send(authorized(dropped).build(), HttpResponse.BodyHandlers.ofString())
                  .body()
                  .split("\n"));
      assertThat(lines).hasSize(2);
      var first = Json.mapper().readTree(lines.get(0));
      assertThat(first.path("source").asText()).isEqualTo("hubble");
      assertThat(first.path("reason").asText()).isEqualTo("reply");
      assertThat(first.path("input").path("flow").path("is_reply").asBoolean()).isTrue();
      assertThat(first.path("droppedAt").asText()).isNotBlank();
      var second = Json.mapper().readTree(lines.get(1));
      assertThat(second.path("reason").asText()).isEqualTo("ignored-log");
      assertThat(second.path("input").asText()).contains("connection opened");
      // Drained; the flows themselves were left for GET /flow.
      assertThat(
              client.send(authorized(dropped).build(), HttpResponse.BodyHandlers.ofString()).body())
          .isEmpty();
      assertThat(
              client
                  .send(
                      authorized(URI.create("http://127.0.0.1:" + server.port() + "/flow")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body()
                  .split("\n"))
          .hasSize(1);
    }
  }

  @Test
  void theIntakeHandsDroppedHubbleRecordsToTheDumper() throws Exception {
    FlowDumper dumper = new FlowDumper(1000);
    var intake =
        new FlowIntake(
            List.of(dumper),
            (source, reason, payload, error) -> {},
            new IngestMetrics(new SimpleMeterRegistry()),
            List.of(dumper));
    var parser =
        new HubbleFlowParser(new WorkloadResolver(Fixtures.clusterState()), Clock.systemUTC());
    int published = 0;
    int droppedCount = 0;
    for (String line : Files.readAllLines(Fixtures.file("hubble-flows.jsonl"))) {
      var response = HubbleJson.decode(line, Json.mapper().readTree(line));
      var outcome = parser.parse(response);
      if (outcome.lostEvents() > 0) {
        continue;
      }
      if (outcome.isDropped()) {
        droppedCount++;
      } else {
        published += outcome.records().size();
      }
      intake.accept("hubble", outcome, () -> line);
    }
    List<DroppedFlow> dropped = dumper.drainDropped();
    assertThat(dropped).hasSize(droppedCount).isNotEmpty();
    assertThat(dropped)
        .allSatisfy(
            d -> {
              assertThat(d.source()).isEqualTo("hubble");
              assertThat(d.reason()).isNotBlank();
              assertThat(d.input().isObject()).isTrue();
            });
    assertThat(dumper.drain()).hasSize(published);
  }
}
