package io.kubewarden.networkenforcer.writer.proposals;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The ledger's sums of loss records. */
class LossLedgerTest {
  private static final Instant T = Instant.parse("2026-08-03T15:40:00Z");

  /**
   * Found by WriterRecordsFuzzingTest: two nodes each reporting Long.MAX_VALUE lost events summed
   * to a negative total, which the proposals' LostEvents condition would show. It stops at the
   * largest count now.
   */
  @Test
  void theLostTotalOfHugeReportsStopsAtTheLargestCount() {
    LossLedger ledger = new LossLedger(Duration.ofDays(7));
    ledger.add(new DataPlaneLoss(Provider.cilium, "kind/worker", T, T.plusSeconds(5), Long.MAX_VALUE, 1));
    ledger.add(new DataPlaneLoss(Provider.cilium, "kind/worker2", T, T.plusSeconds(5), Long.MAX_VALUE, 1));
    ledger.add(new DataPlaneLoss(Provider.cilium, "kind/worker", T, T.plusSeconds(9), 7, 1));
    LossLedger.Hold hold = ledger.holdAt(T.plusSeconds(60)).orElseThrow();
    assertThat(hold.total()).isEqualTo(Long.MAX_VALUE);
    assertThat(hold.lostEvents()).extracting(e -> e.getLostEvents()).containsExactly(Long.MAX_VALUE, Long.MAX_VALUE);
  }
}
