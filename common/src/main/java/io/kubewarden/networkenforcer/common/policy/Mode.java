package io.kubewarden.networkenforcer.common.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** {@code spec.mode} of a WorkloadNetworkPolicy; also the action of a violation. */
public enum Mode {
  monitor,
  protect;

  @JsonValue
  public String value() {
    return name();
  }

  @JsonCreator
  public static Mode parse(String value) {
    return fromLabel(value)
        .orElseThrow(
            () -> new IllegalArgumentException("mode must be monitor or protect, got: " + value));
  }

  /**
   * The promote label value as a mode; empty for anything but {@code monitor} or {@code protect}.
   */
  public static Optional<Mode> fromLabel(String value) {
    for (Mode m : values()) {
      if (m.name().equals(value)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }
}
