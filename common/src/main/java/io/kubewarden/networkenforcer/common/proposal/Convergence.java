package io.kubewarden.networkenforcer.common.proposal;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * Whether a proposal has seen what it is going to see: {@code converged} when no new peer or port
 * appeared for the quiet period and the proposal has at least the minimum number of observations.
 * All times are flow times (event time), never the wall clock, so a replay gives the same answer.
 *
 * @param since when the state began: for true, the moment the quiet period ended; for false, the
 *     latest new peer or port (or the end of the latest loss window when loss holds it false)
 * @param reason a CamelCase reason ({@code QuietPeriodPassed}, {@code NewPeerOrPort}, {@code
 *     TooFewObservations}, {@code EventsLost})
 * @param message what a person reads: why, and what would reset or complete it
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Convergence(boolean converged, Instant since, String reason, String message) {

  public static final String CONDITION_TYPE = "Converged";

  public Convergence {
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(reason, "reason");
  }

  /** The {@code Converged} condition of the proposal status. */
  public Condition toCondition() {
    return new ConditionBuilder()
        .withType(CONDITION_TYPE)
        .withStatus(converged ? "True" : "False")
        .withLastTransitionTime(DateTimeFormatter.ISO_INSTANT.format(since))
        .withReason(reason)
        .withMessage(message)
        .build();
  }
}
