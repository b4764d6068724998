package io.kubewarden.networkenforcer.common.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.codec.WireWriter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** How a flow was seen: carried by JSON and binary records, absent in older ones. */
class SightingTest {
  private static final Instant T = Instant.parse("2026-08-03T15:40:01.104991207Z");
  private final BinarySerde<FlowRecord> serde = Topics.flowRecordSerde();
  private final JsonSerde<FlowRecord> json = new JsonSerde<>(FlowRecord.class);

  private static FlowRecord flow(Reporter reporter, Sighting seenAs) {
    return new FlowRecord(
        T,
        Provider.cilium,
        Protocol.TCP,
        8080,
        FlowRecordCodecTest.client(),
        FlowRecordCodecTest.server(),
        Verdict.FORWARDED,
        null,
        1,
        reporter,
        null,
        seenAs);
  }

  @Test
  void aRecordWithoutItIsSeenAsItsReporterSays() {
    assertThat(flow(Reporter.SOURCE, null).sighting()).isEqualTo(Sighting.SOURCE_RECORD);
    assertThat(flow(Reporter.DESTINATION, null).sighting()).isEqualTo(Sighting.DESTINATION_RECORD);
    assertThat(flow(Reporter.UNKNOWN, null).sighting()).isNull();
    assertThat(flow(Reporter.SOURCE, Sighting.L7_REQUEST).sighting())
        .isEqualTo(Sighting.L7_REQUEST);
  }

  @Test
  void jsonCarriesItsLabel() throws Exception {
    String written =
        new String(json.write(flow(Reporter.SOURCE, Sighting.L7_REQUEST)), StandardCharsets.UTF_8);
    assertThat(written).contains(",\"seenAs\":\"l7-request\"");
    assertThat(json.read("flows", written.getBytes(StandardCharsets.UTF_8)).seenAs())
        .isEqualTo(Sighting.L7_REQUEST);
    assertThat(new String(json.write(flow(Reporter.SOURCE, null)), StandardCharsets.UTF_8))
        .doesNotContain("seenAs");
  }

  @Test
  void theJsonOfAnOlderVersionHasNoneAndReadsAsItsReporterSays() throws Exception {
    var tree = (ObjectNode) Json.mapper().readTree(json.write(flow(Reporter.DESTINATION, null)));
    tree.remove("lastSeen");
    byte[] old = Json.mapper().writeValueAsBytes(tree);

    FlowRecord back = serde.read("flows", old);
    assertThat(back.seenAs()).isNull();
    assertThat(back.sighting()).isEqualTo(Sighting.DESTINATION_RECORD);
    assertThat(back).isEqualTo(flow(Reporter.DESTINATION, null));
  }

  @Test
  void binaryCarriesItAsField13AndNothingWhenAbsent() {
    FlowRecord l7 = flow(Reporter.SOURCE, Sighting.L7_REQUEST);
    byte[] with = serde.write(l7);
    byte[] without = serde.write(flow(Reporter.SOURCE, null));

    assertThat(serde.read("flows", with)).isEqualTo(FlowRecordCodec.carried(l7));
    // One tag byte (13 << 3 = 104) and the code 3, at the end.
    assertThat(with).hasSize(without.length + 2);
    assertThat(Arrays.copyOfRange(with, with.length - 2, with.length))
        .containsExactly((byte) 104, (byte) 3);
    assertThat(serde.read("flows", without).seenAs()).isNull();
  }

  @Test
  void aSightingANewerVersionAddedReadsAsAbsent() {
    byte[] known = serde.write(flow(Reporter.DESTINATION, null));
    WireWriter extra = new WireWriter(8);
    extra.varint(13, 9);
    byte[] tail = extra.toByteArray();
    byte[] newer = Arrays.copyOf(known, known.length + tail.length);
    System.arraycopy(tail, 0, newer, known.length, tail.length);

    FlowRecord back = serde.read("flows", newer);
    assertThat(back.seenAs()).isNull();
    assertThat(back.sighting()).isEqualTo(Sighting.DESTINATION_RECORD);
  }
}
