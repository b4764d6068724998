package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a loss record must hold before the ledger takes it: a window that has ended by now. Ingest
 * writes a window once it is over, so one that ends later than this writer's clock plus a skew
 * tolerance is forged or from a clock set wrong; taken, it would hold every proposal back until
 * then (and one near the end of time stopped the loss consumer's thread on the hold's end). A
 * record that fails goes to {@code dead-letter} with the reason this returns.
 */
public final class LossCheck {
  /** Skew between ingest's clock and the writer's that is taken as it comes. */
  public static final Duration TOLERANCE = Duration.ofMinutes(5);

  private LossCheck() {}

  /** Empty when the ledger may take the record at {@code now}; otherwise why not. */
  public static Optional<String> problem(DataPlaneLoss loss, Instant now) {
    if (loss.to().isAfter(now.plus(TOLERANCE))) {
      return Optional.of(
          "to "
              + loss.to()
              + " is in the future (the writer's clock says "
              + now
              + "); a loss "
              + "window is written once it has ended: check the clock of the ingest that wrote it");
    }
    return Optional.empty();
  }
}
