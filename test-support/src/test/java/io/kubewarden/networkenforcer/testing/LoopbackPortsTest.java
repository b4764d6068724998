package io.kubewarden.networkenforcer.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

  @Test
  void choosesABindablePortOutsideTheEphemeralRange() throws Exception {
    int below = LoopbackPorts.ephemeralLow();
    for (int i = 0; i < 20; i++) {
      int port = LoopbackPorts.free();
      // Outgoing connections get ports from the ephemeral range; a port below it cannot be taken by
      // one.
      assertTrue(
          port >= 10000 && port < below,
          "port " + port + " is not below the ephemeral range " + below);
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertTrue(socket.isBound());
      }
    }
  }

  @Test
  void skipsAPortThatIsListenedOn() throws Exception {
    int taken = LoopbackPorts.free();
    try (ServerSocket listener = new ServerSocket(taken, 1, InetAddress.getLoopbackAddress())) {
      for (int i = 0; i < 50; i++) {
        int port = LoopbackPorts.freeBetween(taken, taken + 2);
        assertTrue(port != taken, "port " + taken + " is listened on and was chosen");
      }
    }
  }
}
