package io.kubewarden.networkenforcer.cli.compose;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The host's address on Docker's default bridge: what {@code host.docker.internal:host-gateway}
 * resolves to inside containers. A local address (no traffic leaves the machine) that containers on
 * any compose network reach, so host-side servers of a test listen there.
 */
final class DockerBridge {

  private DockerBridge() {}

  static String hostAddress() {
    String interfaceName = bridgeInterface();
    try {
      NetworkInterface bridge = NetworkInterface.getByName(interfaceName);
      if (bridge == null) {
        throw new IllegalStateException(
            "Docker's bridge interface " + interfaceName + " does not exist");
      }
      return bridge
          .inetAddresses()
          .filter(Inet4Address.class::isInstance)
          .map(InetAddress::getHostAddress)
          .findFirst()
          .orElseThrow(() -> new IllegalStateException(interfaceName + " has no IPv4 address"));
    } catch (SocketException e) {
      throw new IllegalStateException("cannot read the interface " + interfaceName, e);
    }
  }

  private static String bridgeInterface() {
    String format = "{{index .Options \"com.docker.network.bridge.name\"}}";
    try {
      Process inspect =
          new ProcessBuilder("docker", "network", "inspect", "bridge", "--format", format)
              .redirectErrorStream(true)
              .start();
      String out =
          new String(inspect.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!inspect.waitFor(30, TimeUnit.SECONDS) || inspect.exitValue() != 0 || out.isEmpty()) {
        throw new IllegalStateException(
            "no Docker engine answers (hack/tools/docker.sh starts one): " + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException(
          "the docker CLI is missing (hack/tools/docker.sh installs it)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
