package io.kubewarden.networkenforcer.writer.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.kubewarden.networkenforcer.writer.conditions.Conditions;
import io.kubewarden.networkenforcer.writer.conditions.StatusConditions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The conditions of a policy's status after a merge. */
final class PolicyConditions {
  private PolicyConditions() {}

  /**
   * Rendering conditions, the acknowledgement condition and {@code Ready} (the outcome of
   * rendering: True once the native object matches). Every condition carries the generation it was
   * written for; an unchanged one keeps its transition time.
   */
  static List<Condition> of(
      List<Condition> before,
      List<Condition> render,
      List<String> unmatched,
      Long generation,
      String now) {
    Map<String, Condition> wanted = new TreeMap<>();
    for (Condition c : before == null ? List.<Condition>of() : before) {
      if (!StatusConditions.UNMATCHED_ACKNOWLEDGEMENTS.equals(c.getType())) {
        wanted.put(c.getType(), c);
      }
    }
    for (Condition c : render) {
      wanted.put(c.getType(), c);
    }
    if (!unmatched.isEmpty()) {
      wanted.put(
          StatusConditions.UNMATCHED_ACKNOWLEDGEMENTS,
          new ConditionBuilder()
              .withType(StatusConditions.UNMATCHED_ACKNOWLEDGEMENTS)
              .withStatus("True")
              .withReason(StatusConditions.REASON_UNKNOWN_VIOLATION_ID)
              .withMessage(
                  "these annotations match no active violation record: "
                      + String.join(", ", unmatched))
              .build());
    }
    Condition rendered = wanted.get(StatusConditions.RENDERED);
    if (rendered != null) {
      wanted.put(
          StatusConditions.READY,
          new ConditionBuilder()
              .withType(StatusConditions.READY)
              .withStatus(rendered.getStatus())
              .withReason(
                  "True".equals(rendered.getStatus())
                      ? StatusConditions.REASON_READY
                      : rendered.getReason())
              .withMessage(rendered.getMessage())
              .build());
    }
    List<Condition> out = new ArrayList<>();
    for (Condition c : wanted.values()) {
      out.add(Conditions.written(c, Conditions.find(before, c.getType()), generation, now));
    }
    return out;
  }
}
