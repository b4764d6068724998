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
 * same line, for every record of the real captures in samples/; lines not in the plain form are left
 * to JsonFormat, which reads or refuses them as before.
 */
class HubbleJsonTreeTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Path SAMPLES = Path.of("..", "samples");

  @Test
  void everyRealRecordIsReadFromTheTreeAsJsonFormatReadsIt() throws Exception {
    List<String> lines = new ArrayList<>();
    for (String capture : List.of("basic/hubble-flows.jsonl", "captures/hubble-multinode.jsonl",
        "captures/hubble-export-cilium-docs.jsonl")) {
      Files.readAllLines(SAMPLES.resolve(capture)).stream().filter(l -> !l.isBlank()).forEach(lines::add);
    }
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
  void aBareFlowIsReadAsAResponseWithThatFlow() throws Exception {
    String line = "{\"time\":\"2026-08-03T15:40:00.5Z\",\"verdict\":\"DROPPED\",\"IP\":{\"source\":\"10.0.0.1\"},"
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
    List<String> odd = List.of(
        // An offset instead of Z, a fractional port, an enum by number, a field under both names,
        // two members of a oneof, an unknown enum name, a null, a port beyond 32 bits.
        "{\"flow\":{\"time\":\"2026-08-03T17:40:00+02:00\",\"verdict\":\"FORWARDED\"}}",
        "{\"flow\":{\"verdict\":\"FORWARDED\",\"l4\":{\"TCP\":{\"destination_port\":8080.5}}}}",
        "{\"flow\":{\"verdict\":1}}",
        "{\"flow\":{\"verdict\":\"FORWARDED\",\"node_name\":\"a\",\"nodeName\":\"b\"}}",
        "{\"flow\":{\"verdict\":\"FORWARDED\",\"l4\":{\"TCP\":{},\"UDP\":{}}}}",
        "{\"flow\":{\"verdict\":\"NOT_A_VERDICT\"}}",
        "{\"flow\":{\"verdict\":\"FORWARDED\",\"source\":null}}",
        "{\"flow\":{\"verdict\":\"FORWARDED\",\"l4\":{\"TCP\":{\"destination_port\":4294967296}}}}");
    for (String line : odd) {
      JsonNode tree = MAPPER.readTree(line);
      assertThat(catchThrowable(() -> HubbleJson.fromTree(tree))).as(line).isInstanceOf(ProtoJsonTree.NotPlain.class);
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
