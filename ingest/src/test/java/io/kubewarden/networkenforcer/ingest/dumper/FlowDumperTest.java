package io.kubewarden.networkenforcer.ingest.dumper;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.json.Json;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlowDumperTest {

  private static FlowRecord flow(int port) {
    FlowEndpoint ep = FlowEndpoint.builder().namespace("demo").podName("p").build();
    return new FlowRecord(Instant.parse("2026-08-03T15:40:00Z"), Provider.cilium, Protocol.TCP, port, ep, ep, null,
        null, 1, null);
  }

  @Test
  void ringBufferKeepsTheNewestAndGetFlowDrainsItAsJsonLines() throws Exception {
    FlowDumper dumper = new FlowDumper(3);
    for (int port = 1; port <= 5; port++) {
      dumper.accept(flow(port));
    }
    assertThat(dumper.overwritten()).isEqualTo(2);
    try (FlowDumperServer server = new FlowDumperServer(dumper, new InetSocketAddress("127.0.0.1", 0)).start()) {
      HttpClient client = HttpClient.newHttpClient();
      URI uri = URI.create("http://127.0.0.1:" + server.port() + "/flow");
      HttpResponse<String> first = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("Content-Type")).contains("application/x-ndjson");
      List<String> lines = Arrays.asList(first.body().split("\n"));
      assertThat(lines).hasSize(3);
      assertThat(lines.stream().map(l -> {
        try {
          return Json.mapper().readValue(l, FlowRecord.class).dstPort();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      })).containsExactly(3, 4, 5);

      HttpResponse<String> second = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(second.statusCode()).isEqualTo(200);
      assertThat(second.body()).isEmpty();
      HttpResponse<String> post = client.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody())
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }
}
