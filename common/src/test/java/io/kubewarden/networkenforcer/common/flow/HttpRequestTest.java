package io.kubewarden.networkenforcer.common.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The HTTP request of a flow: its path as learned, and its place on both wire forms. */
class HttpRequestTest {
  private static final Instant T = Instant.parse("2026-03-01T10:15:30Z");
  private final BinarySerde<FlowRecord> serde = Topics.flowRecordSerde();
  private final JsonSerde<FlowRecord> json = new JsonSerde<>(FlowRecord.class);

  @Test
  void keepsOnlyTheUrlsPath() {
    assertThat(HttpRequest.of("GET", "http://backend.shop:9090/orders/7?page=2#top"))
        .isEqualTo(new HttpRequest("GET", "/orders/7", false));
    assertThat(HttpRequest.of("post", "https://api/v1/items"))
        .isEqualTo(new HttpRequest("POST", "/v1/items", false));
    assertThat(HttpRequest.of("GET", "/health?verbose"))
        .isEqualTo(new HttpRequest("GET", "/health", false));
    assertThat(HttpRequest.of("GET", "http://backend:9090"))
        .isEqualTo(new HttpRequest("GET", "/", false));
    assertThat(HttpRequest.of("GET", "")).isEqualTo(new HttpRequest("GET", "/", false));
    assertThat(HttpRequest.of("GET", "http://h/a://b"))
        .isEqualTo(new HttpRequest("GET", "/a://b", false));
  }

  @Test
  void cutsALongPathAndSaysSo() {
    String tail = "x".repeat(300);
    HttpRequest cut = HttpRequest.of("GET", "http://h/" + tail + "?q=1");
    assertThat(cut.path()).hasSize(256).isEqualTo("/" + "x".repeat(255));
    assertThat(cut.truncated()).isTrue();
    HttpRequest exact = HttpRequest.of("GET", "/" + "y".repeat(255));
    assertThat(exact.path()).hasSize(256);
    assertThat(exact.truncated()).isFalse();
  }

  @Test
  void noUsableMethodIsNoRequest() {
    assertThat(HttpRequest.of("", "/a")).isNull();
    assertThat(HttpRequest.of(null, "/a")).isNull();
    assertThat(HttpRequest.of("GE T", "/a")).isNull();
    assertThat(HttpRequest.of("M".repeat(17), "/a")).isNull();
  }

  @Test
  void travelsOnBothWireFormsAndOldRecordsHaveNone() throws Exception {
    FlowRecord flow =
        new FlowRecord(
            T,
            Provider.cilium,
            Protocol.TCP,
            9090,
            FlowRecordCodecTest.client(),
            FlowRecordCodecTest.server(),
            null,
            null,
            1,
            Reporter.DESTINATION,
            null,
            new HttpRequest("GET", "/orders", true, true));
    assertThat(serde.read("flows", serde.write(flow)).http())
        .isEqualTo(new HttpRequest("GET", "/orders", true, true));
    String text = new String(json.write(flow), StandardCharsets.UTF_8);
    assertThat(text)
        .contains(
            "\"http\":{\"method\":\"GET\",\"path\":\"/orders\",\"truncated\":true,"
                + "\"connectionSeen\":true}");
    assertThat(json.read("flows", json.write(flow))).isEqualTo(flow);

    // Without a request: no field in either form, and JSON of older versions reads as none.
    FlowRecord plain =
        new FlowRecord(
            T,
            Provider.cilium,
            Protocol.TCP,
            9090,
            flow.src(),
            flow.dst(),
            null,
            null,
            1,
            Reporter.DESTINATION);
    assertThat(new String(json.write(plain), StandardCharsets.UTF_8)).doesNotContain("http");
    var tree = (ObjectNode) Json.mapper().readTree(json.write(flow));
    tree.remove("http");
    assertThat(serde.read("flows", Json.mapper().writeValueAsBytes(tree)).http()).isNull();
    assertThat(serde.read("flows", serde.write(plain)).http()).isNull();
    // Repeats fold only with the same request.
    assertThat(flow.plus(flow).http()).isEqualTo(flow.http());
  }
}
