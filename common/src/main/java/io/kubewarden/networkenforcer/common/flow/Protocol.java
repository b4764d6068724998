package io.kubewarden.networkenforcer.common.flow;

import java.util.Locale;
import java.util.Optional;

/** Transport protocol of a flow. Learning covers TCP and UDP; SCTP exists for policy evaluation. */
public enum Protocol {
  TCP,
  UDP,
  SCTP;

  public static Optional<Protocol> parse(String value) {
    if (value == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(valueOf(value.trim().toUpperCase(Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
