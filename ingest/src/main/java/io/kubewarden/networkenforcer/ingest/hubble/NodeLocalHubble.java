package io.kubewarden.networkenforcer.ingest.hubble;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Node-local ingest: this process reads only the Hubble server of the node it runs on (the Cilium
 * agent's Observer on the node's address, port 4244, TLS with Cilium's {@code
 * hubble-server-certs}), not Relay. The chart runs one such pod per node (a DaemonSet) and fills
 * the node's name and address from the downward API ({@code spec.nodeName}, {@code status.hostIP}).
 *
 * @param nodeName the Kubernetes node; it names the writer of this pod's flows and the TLS name
 * @param nodeIp the node's address (IPv4 or IPv6)
 * @param port the agent's Hubble port ({@code hubble.listenAddress}, Cilium's default 4244)
 * @param clusterName Cilium's {@code cluster.name} (default {@code default}): part of the server
 *     name
 */
public record NodeLocalHubble(String nodeName, String nodeIp, int port, String clusterName) {
  public static final int DEFAULT_PORT = 4244;
  public static final String DEFAULT_CLUSTER = "default";

  /** A DNS-1123 subdomain, what Kubernetes allows as a node name. */
  private static final Pattern NODE_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

  private static final Pattern CLUSTER_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?");

  /** {@code host:port}, IPv6 in brackets. */
  public String target() {
    return (nodeIp.contains(":") ? "[" + nodeIp + "]" : nodeIp) + ":" + port;
  }

  /**
   * The name the agent's certificate is checked against, as Relay does for its peers: {@code
   * <node>.<cluster>.hubble-grpc.cilium.io}, the node's dots made dashes so that the name stays one
   * label under Cilium's wildcard {@code *.<cluster>.hubble-grpc.cilium.io}.
   */
  public String serverName() {
    return nodeName.replace('.', '-') + "." + clusterName + ".hubble-grpc.cilium.io";
  }

  public NodeLocalHubble validate() {
    if (nodeName == null || !NODE_NAME.matcher(nodeName).matches()) {
      throw new ConfigException(
          "--node-name (NE_NODE_NAME, the pod's spec.nodeName) '"
              + nodeName
              + "' is not a "
              + "node name; node-local ingest reads the Hubble server of its own node and needs the node's name");
    }
    if (nodeIp == null
        || nodeIp.isBlank()
        || nodeIp.chars().anyMatch(c -> c == '/' || Character.isWhitespace(c))) {
      throw new ConfigException(
          "--node-ip (NE_NODE_IP, the pod's status.hostIP) '"
              + nodeIp
              + "' is not an address; "
              + "node-local ingest connects to the Hubble server on its node's address");
    }
    if (port < 1 || port > 65535) {
      throw new ConfigException(
          "--hubble-node-port must be a port between 1 and 65535, got " + port);
    }
    if (clusterName == null || !CLUSTER_NAME.matcher(clusterName).matches()) {
      throw new ConfigException(
          "--cilium-cluster-name '"
              + clusterName
              + "' is not Cilium's cluster.name (lower "
              + "case letters, digits and dashes, at most 32)");
    }
    return this;
  }

  /** The writer of this pod's flows: the ingest of that node. */
  public String writer() {
    return "node/" + nodeName.toLowerCase(Locale.ROOT);
  }
}
