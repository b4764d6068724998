package io.kubewarden.networkenforcer.common.policy;

import java.util.Locale;

/** The direction a proposal or policy covers, as written in {@code spec.direction}. */
public enum Direction {
  Ingress,
  Egress;

  /** {@code ingress} or {@code egress}, as used in object names. */
  public String lowerCase() {
    return name().toLowerCase(Locale.ROOT);
  }
}
