package io.kubewarden.networkenforcer.common.flow;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.kubewarden.networkenforcer.common.policy.Backend;

/** Where a flow record came from. The installation's provider also decides the backend. */
public enum Provider {
  istio,
  calico,
  cilium,
  file;

  @JsonValue
  public String value() {
    return name();
  }

  @JsonCreator
  public static Provider parse(String value) {
    for (Provider p : values()) {
      if (p.name().equals(value)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "provider must be one of istio, calico, cilium, file; got: " + value);
  }

  /** The backend a provider writes: istio -> istio, calico and cilium -> kubernetes. */
  public Backend backend() {
    return this == istio ? Backend.istio : Backend.kubernetes;
  }
}
