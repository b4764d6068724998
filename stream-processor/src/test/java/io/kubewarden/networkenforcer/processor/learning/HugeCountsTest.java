package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Found by RecordSequenceFuzzingTest: flow records of count Long.MAX_VALUE (a producer may write
 * any count) on one peer and port summed to a negative evidence count, which the writer would put
 * into the proposal's status. Counts now stop at Long.MAX_VALUE, through the combiner and without.
 */
class HugeCountsTest {

  @Test
  void evidenceOfHugeCountsStopsAtTheLargestCountWithTheCombiner() {
    assertEvidenceSaturates(ProcessorTestDriver.COMBINE_INTERVAL);
  }

  @Test
  void evidenceOfHugeCountsStopsAtTheLargestCountWithoutTheCombiner() {
    assertEvidenceSaturates(Duration.ZERO);
  }

  private static void assertEvidenceSaturates(Duration combine) {
    try (var driver = ProcessorTestDriver.kubernetesInMemory(combine)) {
      for (int i = 0; i < 3; i++) {
        driver.pipe(
            forwarded(
                Provider.cilium,
                ProcessorTestDriver.START.plusSeconds(i),
                CLIENT,
                SERVER,
                Protocol.TCP,
                8080,
                Long.MAX_VALUE,
                Reporter.SOURCE));
        driver.flushEvidence();
      }
      RuleEvidence rule = driver.latestProposals().get(CLIENT_EGRESS).evidence().get(0);
      assertThat(rule.getCount()).isEqualTo(Long.MAX_VALUE);
      assertThat(rule.getPorts().get(0).getCount()).isEqualTo(Long.MAX_VALUE);
    }
  }
}
