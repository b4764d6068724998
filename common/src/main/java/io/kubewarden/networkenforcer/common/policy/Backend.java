package io.kubewarden.networkenforcer.common.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** The policy model of a proposal or policy ({@code spec.backend}). */
public enum Backend {
  kubernetes,
  istio,
  /** A CiliumNetworkPolicy (cilium.io/v2): external egress by DNS name ({@code toFQDNs}). */
  cilium;

  @JsonValue
  public String value() {
    return name();
  }

  @JsonCreator
  public static Backend parse(String value) {
    for (Backend b : values()) {
      if (b.name().equals(value == null ? null : value.toLowerCase(Locale.ROOT))) {
        return b;
      }
    }
    throw new IllegalArgumentException(
        "backend must be kubernetes, istio or cilium, got: " + value);
  }
}
