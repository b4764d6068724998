package io.kubewarden.networkenforcer.processor.learning;

import io.kubewarden.networkenforcer.common.flow.Protocol;

/** One learned port of a peer. */
public record LearnedPort(Protocol protocol, int port) {

  /** Sort key: protocol, then port number (zero-padded so text order is numeric order). */
  public String key() {
    return protocol.name() + "/" + String.format("%05d", port);
  }
}
