package io.kubewarden.networkenforcer.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports, for processes and servers that need a fixed port on their command line or in
 * their configuration, started after the port is chosen. The port is chosen below the kernel's
 * ephemeral range: a port from that range (what {@code new ServerSocket(0)} gives) can be handed to
 * any outgoing connection, the child's own included, between the check here and the child's bind,
 * which then fails with "address already in use". Below the range only another listener can take
 * it, and a random choice makes two alike rare.
 */
public final class LoopbackPorts {

  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** Linux's default start of the ephemeral range, used where the kernel does not say. */
  private static final int DEFAULT_EPHEMERAL_LOW = 32768;

  private static final int LOWEST = 10000;
  private static final int ATTEMPTS = 200;

  /** The kernel's setting, read once: it does not change while tests run. */
  private static final int EPHEMERAL_LOW = ephemeralLow();

  private LoopbackPorts() {}

  /** A port no socket is bound to on any address, below the ephemeral range where it has one. */
  public static int free() {
    return EPHEMERAL_LOW - LOWEST < 1000 ? anyFree() : freeBetween(LOWEST, EPHEMERAL_LOW);
  }

  /** A free port from {@code low} (inclusive) to {@code high} (exclusive), or any free port. */
  static int freeBetween(int low, int high) {
    for (int i = 0; i < ATTEMPTS; i++) {
      int port = ThreadLocalRandom.current().nextInt(low, high);
      if (isFree(port)) {
        return port;
      }
    }
    return anyFree();
  }

  static int ephemeralLow() {
    // Read by line: a sysctl file reports a size of 0 and answers only a read from its start, so a
    // whole-file read (Files.readString) gets its first byte alone.
    try (BufferedReader reader =
        Files.newBufferedReader(EPHEMERAL_RANGE, StandardCharsets.US_ASCII)) {
      String line = reader.readLine();
      return line == null ? DEFAULT_EPHEMERAL_LOW : Integer.parseInt(line.trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }

  private static boolean isFree(int port) {
    // Bound on every address: taken if anything listens on it, on loopback or elsewhere.
    try (ServerSocket socket = new ServerSocket(port, 1)) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private static int anyFree() {
    try (ServerSocket socket = new ServerSocket(0, 1)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port", e);
    }
  }
}
