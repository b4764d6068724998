package io.kubewarden.networkenforcer.common.control;

import java.time.Instant;
import java.util.Objects;

/**
 * A command from the writer to the processor, keyed by target on the control topic.
 *
 * @param target the target key {@code ns/Kind/name/Direction}
 * @param reason why, for the logs (for example: proposal deleted by hand)
 */
public record ControlCommand(Type type, String target, Instant at, String reason) {

  public ControlCommand {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(target, "target");
  }

  /** What the processor should do. */
  public enum Type {
    /** Forget what was learned for the target and tombstone its proposal. */
    RESET_LEARNING
  }

  public static ControlCommand resetLearning(String target, Instant at, String reason) {
    return new ControlCommand(Type.RESET_LEARNING, target, at, reason);
  }
}
