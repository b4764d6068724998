package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Filling the message from the already parsed tree gives what protobuf's JsonFormat gives for the
 * same line, for every record of the real captures in samples/; lines not in the plain form are
 * left to JsonFormat, which reads or refuses them as before.
 */
class HubbleJsonTreeTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Path SAMPLES = Path.of("..", "samples");

  /**
   * An offset instead of Z, a fractional port, an enum by number, a field under both names, two
   * members of a oneof, an unknown enum name, a null, a port beyond 32 bits.
   */
  private static final List<String> ODD =
      List.of(
          "{\"flow\":{\"time\":\"2026-08-03T17:40:00+02:00\",\"verdict\":\"FORWARDED\"}}",
          "{\"flow\":{\"verdict\":\"FORWARDED\",\"l4\":{\"TCP\":{\"destination_port\":8080.5}}}}",
          "{\"flow\":{\"verdict\":1}}",
          "{\"flow\":{\"verdict\":\"FORWARDED\",\"node_name\":\"a\",\"nodeName\":\"b\"}}",
          "{\"flow\":{\"verdict\":\"FORWARDED\",\"l4\":{\"TCP\":{},\"UDP\":{}}}}",
          "{\"flow\":{\"verdict\":\"NOT_A_VERDICT\"}}",
          "{\"flow\":{\"verdict\":\"FORWARDED\",\"source\":null}}",
          "{\"flow\":{\"verdict\":\"FORWARDED\",\"l4\":{\"TCP\":{\"destination_port\":4294967296}}}}");

  @Test
  void everyRealRecordIsReadFromTheTreeAsJsonFormatReadsIt() throws Exception {
    List<String> lines = realLines();
    assertThat(lines).hasSize(52);
    int flows = 0;
    for (String line : lines) {
      JsonNode tree = MAPPER.readTree(line);
      GetFlowsResponse fromTree = HubbleJson.fromTree(tree);
      assertThat(fromTree).as(line).isEqualTo(HubbleJson.viaJsonFormat(line, tree));
      flows += fromTree.hasFlow() ? 1 : 0;
    }
    assertThat(flows).isGreaterThan(40);
  }

  @Test
  void everyRealResponseIsReadStraightFromTheLineAsFromTheTree() throws Exception {
    int responses = 0;
    for (String line : realLines()) {
      JsonNode tree = MAPPER.readTree(line);
      GetFlowsResponse streamed = HubbleJson.fromLine(line);
      if (tree.has("verdict")) {
        // A bare flow: left to the tree.
        assertThat(streamed).as(line).isNull();
        continue;
      }
      assertThat(streamed).as(line).isNotNull().isEqualTo(HubbleJson.fromTree(tree));
      responses++;
    }
    assertThat(responses).isEqualTo(realLines().size() - bareFlows());
    assertThat(responses).isGreaterThan(40);
  }

  @Test
  void aLineTheStreamCannotReadPlainlyIsLeftToTheTreeAndReadsAsBefore() throws Exception {
    List<String> lines = new ArrayList<>(ODD);
    lines.addAll(
        List.of(
            // A key twice (the tree keeps the last), a bare flow, not JSON, not an object, cut
            // short,
            // and an unknown field with any value (skipped by both).
            "{\"flow\":{\"verdict\":\"DROPPED\",\"verdict\":\"FORWARDED\"}}",
            "{\"time\":\"2026-08-03T15:40:00Z\",\"verdict\":\"DROPPED\",\"node_name\":\"n1\"}",
            "verdict=DROPPED",
            "[{\"flow\":{}}]",
            "{\"flow\":{\"verdict\":\"FORWARDED\"",
            "{\"flow\":{\"verdict\":\"FORWARDED\",\"future\":{\"a\":[1,null,{\"b\":null}]}},\"x\":null}"));
    for (String line : lines) {
      GetFlowsResponse streamed = HubbleJson.fromLine(line);
      JsonNode tree;
      try {
        tree = MAPPER.readTree(line);
      } catch (Exception notJson) {
        assertThat(streamed).as(line).isNull();
        continue;
      }
      Object viaTree;
      try {
        viaTree = HubbleJson.decode(line, tree);
      } catch (Exception e) {
        viaTree = e.getClass().getName();
      }
      if (streamed != null) {
        assertThat(streamed).as(line).isEqualTo(viaTree);
      }
    }
    // Of these only the line with unknown fields is plain.
    assertThat(lines.stream().filter(l -> HubbleJson.fromLine(l) != null))
        .containsExactly(lines.get(lines.size() - 1));
  }

  private static List<String> realLines() throws Exception {
    List<String> lines = new ArrayList<>();
    for (String capture :
        List.of(
            "basic/hubble-flows.jsonl",
            "captures/hubble-multinode.jsonl",
            "captures/hubble-export-cilium-docs.jsonl")) {
      Files.readAllLines(SAMPLES.resolve(capture)).stream()
          .filter(l -> !l.isBlank())
          .forEach(lines::add);
    }
    return lines;
  }

  private static long bareFlows() throws Exception {
    long n = 0;
    for (String line : realLines()) {
      n += MAPPER.readTree(line).has("verdict") ? 1 : 0;
    }
    return n;
  }

  @Test
  void aBareFlowIsReadAsAResponseWithThatFlow() throws Exception {
    String line =
        "{\"time\":\"2026-08-03T15:40:00.5Z\",\"verdict\":\"DROPPED\",\"IP\":{\"source\":\"10.0.0.1\"},"
            + "\"l4\":{\"UDP\":{\"destination_port\":53}},\"is_reply\":false,\"node_name\":\"n1\"}";
    JsonNode tree = MAPPER.readTree(line);
    GetFlowsResponse response = HubbleJson.fromTree(tree);
    assertThat(response).isEqualTo(HubbleJson.viaJsonFormat(line, tree));
    assertThat(response.getFlow().getL4().getUDP().getDestinationPort()).isEqualTo(53);
    assertThat(response.getFlow().getTime().getNanos()).isEqualTo(500_000_000);
    assertThat(response.getFlow().hasIsReply()).isTrue();
  }

  @Test
  void linesNotInThePlainFormAreLeftToJsonFormat() throws Exception {
    for (String line : ODD) {
      JsonNode tree = MAPPER.readTree(line);
      assertThat(catchThrowable(() -> HubbleJson.fromTree(tree)))
          .as(line)
          .isInstanceOf(PlainProtoJson.NotPlain.class);
      Object viaJsonFormat;
      try {
        viaJsonFormat = HubbleJson.viaJsonFormat(line, tree);
      } catch (Exception e) {
        viaJsonFormat = e.getClass().getName() + ": " + e.getMessage();
      }
      Object decoded;
      try {
        decoded = HubbleJson.decode(line, tree);
      } catch (Exception e) {
        decoded = e.getClass().getName() + ": " + e.getMessage();
      }
      assertThat(decoded).as(line).isEqualTo(viaJsonFormat);
    }
  }
}
