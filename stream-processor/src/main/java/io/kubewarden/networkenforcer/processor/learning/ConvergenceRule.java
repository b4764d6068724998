package io.kubewarden.networkenforcer.processor.learning;

import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import java.time.Duration;
import java.time.Instant;

/**
 * Decides the {@code Converged} condition of a proposal from flow times only: true once no new peer
 * or port appeared for the quiet period (measured up to the latest flow time this processor has
 * seen) and the proposal has at least the minimum number of observations.
 */
public final class ConvergenceRule {
  private final Duration quietPeriod;
  private final long minObservations;

  public ConvergenceRule(LearningSettings settings) {
    this.quietPeriod = settings.quietPeriod();
    this.minObservations = settings.minObservations();
  }

  public Duration quietPeriod() {
    return quietPeriod;
  }

  /**
   * @param lastChange flow time of the latest new peer or port
   * @param now the latest flow time seen (event time)
   * @param observations every observation of the proposal, all rules and ports together
   */
  public Convergence evaluate(Instant lastChange, Instant now, long observations) {
    Instant quietUntil = lastChange.plus(quietPeriod);
    String period = Durations.text(quietPeriod);
    if (now.isBefore(quietUntil)) {
      return new Convergence(
          false,
          lastChange,
          "NewPeerOrPort",
          "a new peer or port appeared at "
              + lastChange
              + "; converges at "
              + quietUntil
              + " if nothing new appears until then (quiet period "
              + period
              + ") and at least "
              + minObservations
              + " observations were made ("
              + observations
              + " so far)");
    }
    if (observations < minObservations) {
      return new Convergence(
          false,
          lastChange,
          "TooFewObservations",
          "no new peer or port since "
              + lastChange
              + " (quiet period "
              + period
              + " passed), but only "
              + observations
              + " of the "
              + minObservations
              + " observations needed");
    }
    return new Convergence(
        true,
        quietUntil,
        "QuietPeriodPassed",
        "no new peer or port since "
            + lastChange
            + " (quiet period "
            + period
            + ") over "
            + observations
            + " observations; a new peer or port, or events lost by the data plane, resets it");
  }

  /** Short text of a duration for messages: 7d, 36h, 90m, 45s. */
  static final class Durations {
    private Durations() {}

    static String text(Duration d) {
      if (d.toSeconds() % 86_400 == 0) {
        return d.toDays() + "d";
      }
      if (d.toSeconds() % 3_600 == 0) {
        return d.toHours() + "h";
      }
      if (d.toSeconds() % 60 == 0) {
        return d.toMinutes() + "m";
      }
      return d.toSeconds() + "s";
    }
  }
}
