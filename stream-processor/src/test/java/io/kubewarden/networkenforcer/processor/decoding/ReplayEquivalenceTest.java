package io.kubewarden.networkenforcer.processor.decoding;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import io.kubewarden.networkenforcer.processor.observation.Observation;
import io.kubewarden.networkenforcer.processor.observation.ObservationCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A flows topic written before the binary format (JSON records, without {@code lastSeen}) replays
 * to the same proposals and violations as the same flows written today, and a topic that mixes
 * both.
 */
class ReplayEquivalenceTest {
  private final JsonSerde<FlowRecord> json = new JsonSerde<>(FlowRecord.class);

  /** The JSON versions before the binary format wrote: no lastSeen field. */
  private byte[] oldJson(FlowRecord flow) throws Exception {
    var tree = (ObjectNode) Json.mapper().readTree(json.write(flow));
    tree.remove("lastSeen");
    return Json.mapper().writeValueAsBytes(tree);
  }

  private static List<FlowRecord> allFixtures() {
    List<FlowRecord> flows = new ArrayList<>(BasicFixture.hubbleFlows());
    flows.addAll(BasicFixture.goldmaneFlows());
    return flows;
  }

  @Test
  void anOldJsonTopicGivesTheSameProposalsAsABinaryOne() throws Exception {
    Map<String, byte[]> fromBinary;
    try (var driver = ProcessorTestDriver.kubernetes()) {
      fromBinary = driver.pipe(allFixtures()).flushEvidence().latestProposalBytes();
    }
    Map<String, byte[]> fromJson;
    try (var driver = ProcessorTestDriver.kubernetes()) {
      for (FlowRecord flow : allFixtures()) {
        driver.pipeRawFlow(flow.partitionKey().getBytes(StandardCharsets.UTF_8), oldJson(flow));
      }
      fromJson = driver.flushEvidence().latestProposalBytes();
      assertThat(driver.newDeadLetters()).isEmpty();
    }
    Map<String, byte[]> mixed;
    try (var driver = ProcessorTestDriver.kubernetes()) {
      List<FlowRecord> flows = allFixtures();
      for (int i = 0; i < flows.size(); i++) {
        if (i % 2 == 0) {
          driver.pipe(flows.get(i));
        } else {
          driver.pipeRawFlow(
              flows.get(i).partitionKey().getBytes(StandardCharsets.UTF_8), oldJson(flows.get(i)));
        }
      }
      mixed = driver.flushEvidence().latestProposalBytes();
    }
    assertThat(fromBinary).hasSize(3);
    assertThat(fromJson.keySet()).isEqualTo(fromBinary.keySet());
    assertThat(mixed.keySet()).isEqualTo(fromBinary.keySet());
    fromBinary.forEach(
        (target, bytes) -> {
          assertThat(new String(fromJson.get(target), StandardCharsets.UTF_8))
              .as(target)
              .isEqualTo(new String(bytes, StandardCharsets.UTF_8));
          assertThat(new String(mixed.get(target), StandardCharsets.UTF_8))
              .as(target)
              .isEqualTo(new String(bytes, StandardCharsets.UTF_8));
        });
  }

  @Test
  void anOldJsonDenyGivesTheSameViolationAsABinaryOne() throws Exception {
    FlowRecord deny =
        new FlowRecord(
            ProcessorTestDriver.START.plusSeconds(5),
            Provider.cilium,
            Protocol.TCP,
            18080,
            BasicFixture.CLIENT,
            BasicFixture.SERVER,
            Verdict.DENIED,
            null,
            3,
            Reporter.DESTINATION);
    List<Object> violations = new ArrayList<>();
    for (boolean old : new boolean[] {false, true}) {
      try (var driver = ProcessorTestDriver.kubernetes()) {
        driver.pipe(BasicFixture.hubbleFlows()).flushEvidence();
        driver.policy(
            Policies.promoted(
                driver.latestProposals().get(BasicFixture.SERVER_INGRESS), Mode.protect));
        if (old) {
          driver.pipeRawFlow(deny.partitionKey().getBytes(StandardCharsets.UTF_8), oldJson(deny));
        } else {
          driver.pipe(deny);
        }
        violations.add(driver.newViolations());
      }
    }
    assertThat(violations.get(0)).asList().hasSize(1);
    assertThat(violations.get(1)).isEqualTo(violations.get(0));
  }

  @Test
  void observationsOfTheInternalTopicsReadInBothFormats() throws Exception {
    var serde = ObservationCodec.serde();
    FlowRecord flow = BasicFixture.hubbleFlows().get(0);
    Observation observation = new Observation(flow, "demo/Deployment/http-client/Egress");
    byte[] binary = serde.write(observation);
    byte[] jsonBytes = new JsonSerde<>(Observation.class).write(observation);
    Observation fromBinary = serde.read("t", binary);
    Observation fromJson = serde.read("t", jsonBytes);
    assertThat(fromJson).isEqualTo(observation);
    assertThat(fromBinary.fallbackTarget()).isEqualTo(observation.fallbackTarget());
    assertThat(fromBinary.flow().src().workload()).isEqualTo(flow.src().workload());
    assertThat(fromBinary.flow().dst().workloadSelector()).isEqualTo(flow.dst().workloadSelector());
    assertThat(binary.length).isLessThan(jsonBytes.length / 2);
  }
}
