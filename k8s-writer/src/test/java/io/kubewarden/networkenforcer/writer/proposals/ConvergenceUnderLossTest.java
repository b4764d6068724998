package io.kubewarden.networkenforcer.writer.proposals;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The rule alone: when a hold ends, whose verdict counts, and when Converged became true. */
class ConvergenceUnderLossTest {
  private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");
  private static final Convergence SETTLED =
      new Convergence(
          true, Instant.parse("2026-02-20T00:00:00Z"), "QuietPeriodPassed", "no new peer or port");

  @Test
  void aHoldSaysWhenItEndsAndKeepsTheProcessorsVerdict() {
    LossLedger ledger = new LossLedger(Duration.ofDays(7));
    ledger.add(new DataPlaneLoss(Provider.calico, null, T0, T0.plusSeconds(30), 7, 2));
    ledger.add(
        new DataPlaneLoss(Provider.calico, null, T0, T0, 0, 1)); // nothing lost: no hold of its own

    ConvergenceUnderLoss.Outcome held =
        ConvergenceUnderLoss.decide(SETTLED.toCondition(), ledger, T0.plus(Duration.ofDays(2)));
    assertThat(held.converged().getStatus()).isEqualTo("False");
    assertThat(held.converged().getReason()).isEqualTo("EventsLost");
    assertThat(held.converged().getMessage())
        .contains("lost 7 events")
        .contains("converge at 2026-03-08T00:00:30Z");
    assertThat(ledger.latestLoss()).contains(T0.plusSeconds(30));
    assertThat(held.lostEvents())
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.getProvider()).isEqualTo("calico");
              assertThat(l.getNode()).isNull();
              assertThat(l.getLostEvents()).isEqualTo(7);
            });
    Condition settled = held.learningSettled();
    assertThat(settled.getType()).isEqualTo("LearningSettled");

    // A later reconcile without a record finds the verdict in LearningSettled, not in the held
    // condition.
    Condition learned = ConvergenceUnderLoss.learned(null, held.converged(), settled);
    assertThat(learned.getType()).isEqualTo("Converged");
    assertThat(learned.getStatus()).isEqualTo("True");
    assertThat(ConvergenceUnderLoss.learned(null, held.converged(), null))
        .as("held, never a verdict")
        .isNull();

    ConvergenceUnderLoss.Outcome free =
        ConvergenceUnderLoss.decide(learned, ledger, T0.plus(Duration.ofDays(7)).plusSeconds(30));
    assertThat(free.learningSettled()).isNull();
    assertThat(free.lostEvents()).isEmpty();
    assertThat(free.converged().getStatus()).isEqualTo("True");
    assertThat(free.converged().getLastTransitionTime()).isEqualTo("2026-03-08T00:00:30Z");
  }

  @Test
  void aNodeTheDataPlaneCouldNotReadHoldsLikeLostEventsWithoutACount() {
    LossLedger ledger = new LossLedger(Duration.ofDays(7));
    ledger.add(DataPlaneLoss.unavailable(Provider.cilium, "kind/worker2", T0, T0.plusSeconds(600)));

    ConvergenceUnderLoss.Outcome held =
        ConvergenceUnderLoss.decide(SETTLED.toCondition(), ledger, T0.plus(Duration.ofDays(1)));
    assertThat(held.converged().getStatus()).isEqualTo("False");
    assertThat(held.converged().getReason()).isEqualTo("EventsLost");
    assertThat(held.converged().getMessage())
        .startsWith(
            "the data plane could not read every node between "
                + "2026-03-01T00:00:00Z and 2026-03-01T00:10:00Z (cilium on kind/worker2: 0 lost, unreadable for a time)")
        .contains("converge at 2026-03-08T00:10:00Z");
    assertThat(held.lostEvents())
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.getNode()).isEqualTo("kind/worker2");
              assertThat(l.getLostEvents()).isZero();
              assertThat(l.getNodeUnavailable()).isTrue();
            });
    assertThat(
            ConvergenceUnderLoss.decide(
                    SETTLED.toCondition(), ledger, T0.plus(Duration.ofDays(7)).plusSeconds(600))
                .lostEvents())
        .as("a quiet period after the node was readable again")
        .isEmpty();
  }

  @Test
  void withoutLossTheProcessorsVerdictStandsAsItIs() {
    ConvergenceUnderLoss.Outcome o =
        ConvergenceUnderLoss.decide(SETTLED.toCondition(), new LossLedger(Duration.ofDays(7)), T0);
    assertThat(o.converged()).isEqualTo(SETTLED.toCondition());
    assertThat(ConvergenceUnderLoss.decide(null, null, T0).converged()).isNull();
  }
}
