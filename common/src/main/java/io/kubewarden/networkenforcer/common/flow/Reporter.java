package io.kubewarden.networkenforcer.common.flow;

import io.kubewarden.networkenforcer.common.policy.Direction;

/**
 * Which end observed the flow. A deny reported at the source was enforced on the source's egress,
 * one reported at the destination on the destination's ingress.
 */
public enum Reporter {
  SOURCE,
  DESTINATION,
  UNKNOWN;

  /** The direction of the policy that enforced a deny seen by this reporter; null when unknown. */
  public Direction enforcingDirection() {
    return switch (this) {
      case SOURCE -> Direction.Egress;
      case DESTINATION -> Direction.Ingress;
      case UNKNOWN -> null;
    };
  }
}
