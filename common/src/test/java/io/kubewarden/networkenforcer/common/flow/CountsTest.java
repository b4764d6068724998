package io.kubewarden.networkenforcer.common.flow;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Counts read from records add up without wrapping to negative. */
class CountsTest {
  private static final Instant T = Instant.parse("2026-08-03T15:40:00Z");

  @Test
  void sumsStopAtTheLargestCount() {
    assertThat(Counts.sum(2, 3)).isEqualTo(5);
    assertThat(Counts.sum(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(Counts.sum(Long.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(Counts.sum(Long.MAX_VALUE - 1, 1)).isEqualTo(Long.MAX_VALUE);
  }

  /**
   * Two flow records of count Long.MAX_VALUE folded once made a record of count 1 (wrapped, then
   * reset).
   */
  @Test
  void twoHugeFlowRecordsFoldToTheLargestCount() {
    FlowEndpoint a = FlowEndpoint.builder().namespace("shop").podName("a").build();
    FlowRecord f =
        new FlowRecord(
            T,
            Provider.cilium,
            Protocol.TCP,
            80,
            a,
            a,
            Verdict.FORWARDED,
            null,
            Long.MAX_VALUE,
            Reporter.SOURCE);
    assertThat(f.plus(f).count()).isEqualTo(Long.MAX_VALUE);
  }

  /** Two loss windows of Long.MAX_VALUE lost events once threw on fold (a negative count). */
  @Test
  void twoHugeLossWindowsFoldToTheLargestCount() {
    DataPlaneLoss l =
        new DataPlaneLoss(Provider.cilium, "kind/worker", T, T.plusSeconds(5), Long.MAX_VALUE, 1);
    assertThat(l.plus(l).lostEvents()).isEqualTo(Long.MAX_VALUE);
    assertThat(l.plus(l).reports()).isEqualTo(2);
  }
}
