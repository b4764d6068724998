package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.kubewarden.networkenforcer.common.crd.LostEvents;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.writer.conditions.ProposalConditions;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code Converged} condition a proposal shows: the processor's verdict from flows (no new peer
 * or port for the quiet period), held {@code False} (reason {@value
 * ProposalConditions#REASON_EVENTS_LOST}) while the data plane lost events within the quiet period.
 * While it is held, the processor's own verdict is kept on the status as the condition {@value
 * ProposalConditions#LEARNING_SETTLED}, so the hold can be lifted by any leader without the
 * processor saying it again.
 */
final class ConvergenceUnderLoss {
  /**
   * @param converged the Converged condition to write (null: none known)
   * @param learningSettled the processor's verdict, written while loss holds; null otherwise
   * @param lostEvents the loss that holds it, per provider and node (empty when none)
   */
  record Outcome(Condition converged, Condition learningSettled, List<LostEvents> lostEvents) {}

  private ConvergenceUnderLoss() {}

  /**
   * The processor's latest verdict: the new record's, else the one the status keeps while held,
   * else the live Converged condition unless it is the writer's own hold.
   */
  static Condition learned(
      Convergence fromRecord, Condition liveConverged, Condition liveLearningSettled) {
    if (fromRecord != null) {
      return fromRecord.toCondition();
    }
    if (liveLearningSettled != null) {
      return new ConditionBuilder(liveLearningSettled).withType(Convergence.CONDITION_TYPE).build();
    }
    if (liveConverged != null
        && ProposalConditions.REASON_EVENTS_LOST.equals(liveConverged.getReason())) {
      return null; // held by loss, and the processor never gave a verdict
    }
    return liveConverged;
  }

  static Outcome decide(Condition learned, LossLedger ledger, Instant now) {
    var hold = ledger == null ? Optional.<LossLedger.Hold>empty() : ledger.holdAt(now);
    if (hold.isEmpty()) {
      return new Outcome(afterLoss(learned, ledger), null, List.of());
    }
    LossLedger.Hold h = hold.get();
    String where =
        h.lostEvents().stream()
            .map(
                l ->
                    l.getProvider()
                        + (l.getNode() == null ? "" : " on " + l.getNode())
                        + ": "
                        + (Boolean.TRUE.equals(l.getNodeUnavailable())
                            ? l.getLostEvents() + " lost, unreadable for a time"
                            : l.getLostEvents()))
            .collect(Collectors.joining(", "));
    boolean unreadable =
        h.lostEvents().stream().anyMatch(l -> Boolean.TRUE.equals(l.getNodeUnavailable()));
    String what =
        h.total() > 0 && unreadable
            ? "lost " + h.total() + " events and could not read every node"
            : unreadable ? "could not read every node" : "lost " + h.total() + " events";
    String learning =
        learned == null
            ? ""
            : "; learning alone: " + learned.getStatus() + " (" + learned.getReason() + ")";
    Condition converged =
        new ConditionBuilder()
            .withType(Convergence.CONDITION_TYPE)
            .withStatus("False")
            .withReason(ProposalConditions.REASON_EVENTS_LOST)
            .withLastTransitionTime(LossLedger.text(h.lastLost()))
            .withMessage(
                "the data plane "
                    + what
                    + " between "
                    + LossLedger.text(h.firstLost())
                    + " and "
                    + LossLedger.text(h.lastLost())
                    + " ("
                    + where
                    + "): peers seen only in them may be missing; "
                    + "it can converge at "
                    + LossLedger.text(h.until())
                    + " if nothing is missed until then (quiet period "
                    + text(ledger.quietPeriod())
                    + ")"
                    + learning)
            .build();
    Condition settled =
        learned == null
            ? null
            : new ConditionBuilder(learned).withType(ProposalConditions.LEARNING_SETTLED).build();
    return new Outcome(converged, settled, h.lostEvents());
  }

  /**
   * Without a hold: the processor's verdict, except that a True one became true no earlier than a
   * quiet period after the latest loss.
   */
  private static Condition afterLoss(Condition learned, LossLedger ledger) {
    if (learned == null
        || ledger == null
        || !"True".equals(learned.getStatus())
        || ledger.latestLoss().isEmpty()) {
      return learned;
    }
    Instant heldUntil = ledger.latestLoss().get().plus(ledger.quietPeriod());
    Instant since = parse(learned.getLastTransitionTime());
    if (since != null && !since.isBefore(heldUntil)) {
      return learned;
    }
    return new ConditionBuilder(learned)
        .withLastTransitionTime(LossLedger.text(heldUntil))
        .withMessage(
            learned.getMessage()
                + "; true since "
                + LossLedger.text(heldUntil)
                + ", a quiet period after "
                + "the data plane last lost events ("
                + LossLedger.text(ledger.latestLoss().get())
                + ")")
        .build();
  }

  /** 7d, 36h, 90m, 45s. */
  static String text(Duration d) {
    long s = d.toSeconds();
    return s % 86_400 == 0
        ? s / 86_400 + "d"
        : s % 3_600 == 0 ? s / 3_600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
  }

  private static Instant parse(String time) {
    try {
      return time == null ? null : Instant.parse(time);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
