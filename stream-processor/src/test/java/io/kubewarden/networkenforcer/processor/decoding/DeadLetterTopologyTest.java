package io.kubewarden.networkenforcer.processor.decoding;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Unreadable records go to the dead-letter topic with the reason; the good ones around them count.
 */
class DeadLetterTopologyTest {

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void malformedFlowsAmongGoodOnesAreDeadLetteredAndTheGoodOnesAreLearned() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              18080,
              1,
              Reporter.SOURCE));
      driver.pipeRawFlow(bytes("demo/Deployment/http-client"), bytes("{not json at all"));
      // Valid JSON, but not a flow: no source endpoint.
      driver.pipeRawFlow(
          bytes("demo/Deployment/http-client"),
          bytes(
              "{\"time\":\"2026-08-03T15:40:00Z\",\"provider\":\"cilium\",\"protocol\":\"TCP\",\"dstPort\":80}"));
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              CLIENT,
              COREDNS,
              Protocol.UDP,
              53,
              1,
              Reporter.SOURCE));

      assertThat(driver.latestProposals())
          .containsOnlyKeys(CLIENT_EGRESS, SERVER_INGRESS, COREDNS_INGRESS);
      List<TestRecord<byte[], byte[]>> dead = driver.newDeadLetters();
      assertThat(dead).hasSize(2);
      TestRecord<byte[], byte[]> first = dead.get(0);
      assertThat(new String(first.key(), StandardCharsets.UTF_8))
          .isEqualTo("demo/Deployment/http-client");
      assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("{not json at all");
      assertThat(DeadLetterHeaders.get(first.headers(), DeadLetterHeaders.SOURCE))
          .isEqualTo("stream-processor/network-enforcer.flows");
      assertThat(DeadLetterHeaders.get(first.headers(), DeadLetterHeaders.ORIGIN_TOPIC))
          .isEqualTo("network-enforcer.flows");
      assertThat(DeadLetterHeaders.get(first.headers(), DeadLetterHeaders.ORIGIN_OFFSET))
          .isEqualTo("1");
      assertThat(DeadLetterHeaders.get(first.headers(), DeadLetterHeaders.REASON))
          .contains("not a valid FlowRecord");
      assertThat(DeadLetterHeaders.get(dead.get(1).headers(), DeadLetterHeaders.REASON))
          .contains("src");
      assertThat(driver.metrics().count("dead.lettered", "topic", "network-enforcer.flows"))
          .isEqualTo(2);
    }
  }

  @Test
  void aPolicyWithoutATargetKeyIsDeadLettered() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipeRawPolicy(bytes("deployment-http-server-ingress"), bytes("{}"));
      driver.pipeRawPolicy(null, null);

      List<TestRecord<byte[], byte[]>> dead = driver.newDeadLetters();
      assertThat(dead).hasSize(2);
      assertThat(DeadLetterHeaders.get(dead.get(0).headers(), DeadLetterHeaders.REASON))
          .contains("unusable key")
          .contains("ns/Kind/name/Direction");
      assertThat(DeadLetterHeaders.get(dead.get(1).headers(), DeadLetterHeaders.REASON))
          .contains("has no key");
      assertThat(driver.metrics().count("dead.lettered", "topic", "network-enforcer.policies"))
          .isEqualTo(2);
    }
  }

  /**
   * Found by RecordSequenceFuzzingTest: a flow whose src.workloadName is "a/b/c/d/e" made a target
   * key that the targets processor could not parse back, and the exception stopped the stream
   * thread (at every restart, on the same record). It is dead-lettered now, with the field named,
   * and the flow after it is learned; the same for an empty namespace, with the combiner and
   * without.
   */
  @ParameterizedTest
  @ValueSource(longs = {0, 1})
  void aFlowWithANameThatCannotMakeAKeyIsDeadLetteredAndTheNextOneLearned(long combineMillis) {
    try (var driver = ProcessorTestDriver.kubernetesInMemory(Duration.ofMillis(combineMillis))) {
      var slashed =
          FlowEndpoint.builder()
              .namespace("demo")
              .workload(WorkloadKind.Deployment, "a/b/c/d/e")
              .workloadSelector(CLIENT.workloadSelector())
              .podName("a-1")
              .build();
      var unnamed =
          FlowEndpoint.builder()
              .namespace("")
              .workload(WorkloadKind.Deployment, "web")
              .workloadSelector(CLIENT.workloadSelector())
              .podName("web-1")
              .build();
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              slashed,
              SERVER,
              Protocol.TCP,
              18080,
              1,
              Reporter.SOURCE));
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              CLIENT,
              unnamed,
              Protocol.TCP,
              18080,
              1,
              Reporter.SOURCE));
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              18080,
              1,
              Reporter.SOURCE));

      assertThat(driver.latestProposals()).containsOnlyKeys(CLIENT_EGRESS, SERVER_INGRESS);
      List<TestRecord<byte[], byte[]>> dead = driver.newDeadLetters();
      assertThat(dead).hasSize(2);
      assertThat(DeadLetterHeaders.get(dead.get(0).headers(), DeadLetterHeaders.REASON))
          .contains("src.workloadName 'a/b/c/d/e' is not a Kubernetes name");
      assertThat(DeadLetterHeaders.get(dead.get(1).headers(), DeadLetterHeaders.REASON))
          .contains("dst.namespace '' is not a Kubernetes name");
    }
  }
}
