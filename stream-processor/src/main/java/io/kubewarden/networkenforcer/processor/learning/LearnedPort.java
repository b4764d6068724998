package io.kubewarden.networkenforcer.processor.learning;

import io.kubewarden.networkenforcer.common.flow.Protocol;

/** One learned port of a peer. */
public record LearnedPort(Protocol protocol, int port) {

  /** Sort key: protocol, then port number (zero-padded so text order is numeric order). */
  public String key() {
    // Built by hand: it is made for every flow, and String.format is slow.
    if (port < 0) {
      return protocol.name() + "/" + String.format("%05d", port);
    }
    String digits = Integer.toString(port);
    return protocol.name() + "/" + "00000".substring(Math.min(5, digits.length())) + digits;
  }
}
