package io.kubewarden.networkenforcer.common.evaluation;

/** The outcome of evaluating one flow against one policy. */
public enum Decision {
  /** The policy selects the pod and allows the flow. */
  ALLOWED,
  /** The policy selects the pod, covers the direction, and no rule allows the flow. */
  DENIED,
  /** The policy does not select the pod or does not cover the direction: it has no say. */
  NOT_SELECTED,
  /**
   * Cannot be decided from what the flow record carries (for example a named port whose number is
   * unknown, or an unknown port against a rule with ports). Counted, never reported as a violation.
   */
  UNDETERMINED
}
