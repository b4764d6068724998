package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.codec.WireWriter;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Sighting;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Each port's evidence says how its connections were seen, through the topology the application
 * builds: the destination's record alone teaches the source's egress too, and a reviewer sees that
 * it was all the proof there was.
 */
class SeenAsEvidenceTest {
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:01Z");

  private static FlowRecord seen(Instant time, int port, Reporter reporter, Sighting seenAs) {
    return new FlowRecord(
        time,
        Provider.cilium,
        Protocol.TCP,
        port,
        CLIENT,
        SERVER,
        Verdict.FORWARDED,
        null,
        1,
        reporter,
        null,
        seenAs);
  }

  private static PortEvidence port(ProcessorTestDriver driver, String target, String port) {
    return driver.latestProposals().get(target).evidence().get(0).getPorts().stream()
        .filter(p -> p.getPort().equals(port))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void onlyTheDestinationsRecordTeachesBothEndsAndSaysSo() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(seen(T0, 8080, Reporter.DESTINATION, null)).flushEvidence();

      assertThat(driver.latestProposals()).containsOnlyKeys(CLIENT_EGRESS, SERVER_INGRESS);
      PortEvidence egress = port(driver, CLIENT_EGRESS, "8080");
      assertThat(egress.getSeenAs()).containsExactly("destination-record");
      assertThat(egress.getCount()).isEqualTo(1);
      assertThat(port(driver, SERVER_INGRESS, "8080").getSeenAs())
          .containsExactly("destination-record");
      // As the writer puts it in the proposal's status.evidence.
      assertThat(Json.mapper().writeValueAsString(egress))
          .isEqualTo(
              "{\"protocol\":\"TCP\",\"port\":\"8080\",\"firstSeen\":\"2026-08-03T15:40:01Z\","
                  + "\"lastSeen\":\"2026-08-03T15:40:01Z\",\"count\":1,"
                  + "\"seenAs\":[\"destination-record\"]}");
    }
  }

  @Test
  void everyKindOfRecordOnAPortIsListedOnceInAFixedOrder() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver
          .pipe(
              seen(T0, 8080, Reporter.SOURCE, Sighting.L7_REQUEST),
              seen(T0.plusSeconds(40), 8080, Reporter.DESTINATION, null),
              seen(T0.plusSeconds(80), 8080, Reporter.SOURCE, null),
              seen(T0.plusSeconds(120), 8080, Reporter.SOURCE, Sighting.L7_REQUEST),
              seen(T0.plusSeconds(160), 9090, Reporter.SOURCE, null))
          .flushEvidence();

      PortEvidence http = port(driver, CLIENT_EGRESS, "8080");
      assertThat(http.getSeenAs())
          .containsExactly("source-record", "destination-record", "l7-request");
      assertThat(http.getCount()).isEqualTo(4);
      assertThat(port(driver, CLIENT_EGRESS, "9090").getSeenAs()).containsExactly("source-record");
    }
  }

  @Test
  void aFlowOfAnOlderVersionWithAnUnknownReporterMarksNothing() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      // JSON as versions before the binary format wrote it: no seenAs, no lastSeen.
      var tree = (ObjectNode) Json.mapper().valueToTree(seen(T0, 8080, Reporter.UNKNOWN, null));
      tree.remove("lastSeen");
      tree.remove("reporter");
      assertThat(tree.has("seenAs")).isFalse();
      driver.pipeRawFlow(
          "demo/Deployment/http-client".getBytes(StandardCharsets.UTF_8),
          Json.mapper().writeValueAsBytes(tree));
      driver.flushEvidence();

      PortEvidence egress = port(driver, CLIENT_EGRESS, "8080");
      assertThat(egress.getCount()).isEqualTo(1);
      assertThat(egress.getSeenAs()).isNull();
      assertThat(Json.mapper().writeValueAsString(egress)).doesNotContain("seenAs");
    }
  }

  @Test
  void storedEvidenceKeepsItsMarksAndOlderEvidenceHasNone() {
    BinarySerde<PortStats> serde = PortStatsCodec.serde();
    PortStats marked =
        PortStats.first(Protocol.TCP, 8080, T0, T0, 1, Sighting.DESTINATION_RECORD)
            .observed(T0, T0.plusSeconds(1), 1, Sighting.L7_REQUEST);
    byte[] bytes = serde.write(marked);

    assertThat(serde.read("evidence", bytes).seenAs())
        .isEqualTo(Set.of(Sighting.DESTINATION_RECORD, Sighting.L7_REQUEST));
    // Field 8 = bits 2 (destination-record) and 3 (l7-request): 0b110, the last two bytes.
    assertThat(Arrays.copyOfRange(bytes, bytes.length - 2, bytes.length))
        .containsExactly((byte) 64, (byte) 6);
    PortStats old = serde.read("evidence", Arrays.copyOf(bytes, bytes.length - 2));
    assertThat(old.seenAs()).isEmpty();
    assertThat(old.count()).isEqualTo(2);
    // A bit of a newer version's mark is ignored.
    WireWriter newer = new WireWriter(4);
    newer.varint(8, 0b1000_0001);
    byte[] tail = newer.toByteArray();
    byte[] withNewer = Arrays.copyOf(bytes, bytes.length - 2 + tail.length);
    System.arraycopy(tail, 0, withNewer, bytes.length - 2, tail.length);
    assertThat(serde.read("evidence", withNewer).seenAs()).containsExactly(Sighting.SOURCE_RECORD);
  }

  @Test
  void foldedEvidenceKeepsTheMarksOfBoth() {
    PortStats a = PortStats.first(Protocol.TCP, 443, T0, T0, 2, Sighting.SOURCE_RECORD);
    PortStats b =
        PortStats.first(
            Protocol.TCP, 443, T0.minusSeconds(5), T0.plusSeconds(5), 3, Sighting.L7_REQUEST);

    PortStats both = a.plus(b);
    assertThat(both.seenAs()).isEqualTo(Set.of(Sighting.SOURCE_RECORD, Sighting.L7_REQUEST));
    assertThat(both.count()).isEqualTo(5);
    assertThat(both.firstSeen()).isEqualTo(T0.minusSeconds(5));
    assertThat(both.lastSeen()).isEqualTo(T0.plusSeconds(5));
  }
}
