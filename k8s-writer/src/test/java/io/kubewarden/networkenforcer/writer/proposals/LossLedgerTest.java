package io.kubewarden.networkenforcer.writer.proposals;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.topics.Topics;
import java.nio.charset.StandardCharsets;
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
    ledger.add(
        new DataPlaneLoss(Provider.cilium, "kind/worker", T, T.plusSeconds(5), Long.MAX_VALUE, 1));
    ledger.add(
        new DataPlaneLoss(Provider.cilium, "kind/worker2", T, T.plusSeconds(5), Long.MAX_VALUE, 1));
    ledger.add(new DataPlaneLoss(Provider.cilium, "kind/worker", T, T.plusSeconds(9), 7, 1));
    LossLedger.Hold hold = ledger.holdAt(T.plusSeconds(60)).orElseThrow();
    assertThat(hold.total()).isEqualTo(Long.MAX_VALUE);
    assertThat(hold.lostEvents())
        .extracting(e -> e.getLostEvents())
        .containsExactly(Long.MAX_VALUE, Long.MAX_VALUE);
  }

  /**
   * Found by WriterRecordsFuzzingTest: a loss record whose to is +1000000000-12-31T23:59:59Z made
   * the end of the hold (to plus the quiet period) overflow Instant, a DateTimeException on the
   * loss consumer's thread, which ended it; any window ending in the future would also hold every
   * proposal back until then. The loss consumer refuses it now (dead-letter, this reason).
   */
  @Test
  void aLossWindowEndingInTheFutureIsRefused() {
    byte[] bytes =
        ("{\"provider\":\"cilium\",\"node\":\"kind/worker\",\"from\":\"2026-08-03T15:40:00Z\","
                + "\"to\":\"+1000000000-12-31T23:59:59Z\",\"lostEvents\":12,\"reports\":2}")
            .getBytes(StandardCharsets.UTF_8);
    var topics = Topics.withDefaultPrefix();
    DataPlaneLoss endOfTime =
        topics
            .dataPlaneLoss()
            .valueSerde()
            .deserializer()
            .deserialize(topics.dataPlaneLoss().name(), bytes);
    assertThat(LossCheck.problem(endOfTime, T))
        .hasValue(
            "to +1000000000-12-31T23:59:59Z is in the future (the "
                + "writer's clock says 2026-08-03T15:40:00Z); a loss window is written once it has ended: check the clock "
                + "of the ingest that wrote it");
    DataPlaneLoss skewed =
        new DataPlaneLoss(Provider.cilium, "kind/worker", T, T.plus(LossCheck.TOLERANCE), 1, 1);
    assertThat(LossCheck.problem(skewed, T)).isEmpty();
  }
}
