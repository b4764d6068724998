package io.kubewarden.networkenforcer.writer.conditions;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.List;
import java.util.Objects;

/**
 * The rules every status of the writer keeps for its conditions (Kubernetes API conventions): a
 * condition carries the generation it was written for, and its {@code lastTransitionTime} moves
 * only when its status does.
 */
public final class Conditions {
  public static final String TRUE = "True";
  public static final String FALSE = "False";

  private Conditions() {}

  /** A condition of the given type, True when {@code ok}, with no generation or time yet. */
  public static Condition of(String type, boolean ok, String reason, String message) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(ok ? TRUE : FALSE)
        .withReason(reason)
        .withMessage(message)
        .build();
  }

  /** The condition of that type in the list, or null. */
  public static Condition find(List<Condition> conditions, String type) {
    return conditions == null
        ? null
        : conditions.stream()
            .filter(c -> Objects.equals(type, c.getType()))
            .findFirst()
            .orElse(null);
  }

  /**
   * {@code wanted} as written for {@code generation}: the transition time of {@code before} when
   * the status did not change (and it had one), else {@code now}.
   */
  public static Condition written(Condition wanted, Condition before, Long generation, String now) {
    boolean sameStatus = before != null && Objects.equals(before.getStatus(), wanted.getStatus());
    return new ConditionBuilder(wanted)
        .withObservedGeneration(generation)
        .withLastTransitionTime(
            sameStatus && before.getLastTransitionTime() != null
                ? before.getLastTransitionTime()
                : now)
        .build();
  }

  /** Whether {@code before} already says what {@code wanted} says, for this generation. */
  public static boolean sameFor(Condition before, Condition wanted, Long generation) {
    return before != null
        && Objects.equals(before.getStatus(), wanted.getStatus())
        && Objects.equals(before.getReason(), wanted.getReason())
        && Objects.equals(before.getMessage(), wanted.getMessage())
        && Objects.equals(before.getObservedGeneration(), generation);
  }

  /** Whether two verdicts read the same, transition time included; two nulls are the same. */
  public static boolean sameVerdict(Condition before, Condition now) {
    return now == null
        ? before == null
        : before != null
            && Objects.equals(before.getStatus(), now.getStatus())
            && Objects.equals(before.getReason(), now.getReason())
            && Objects.equals(before.getMessage(), now.getMessage())
            && Objects.equals(before.getLastTransitionTime(), now.getLastTransitionTime());
  }
}
