package io.kubewarden.networkenforcer.common.evaluation;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import java.util.List;

/**
 * Matches a flow's protocol and destination port against the {@code ports} of one NetworkPolicy
 * rule: protocol (default TCP), numeric port, {@code endPort} range, named port.
 *
 * <p>Named ports always name a port of the flow's destination pod (for Ingress the policy's pod,
 * for Egress the peer), resolved by name and protocol against {@link FlowEndpoint#namedPorts()}. A
 * destination outside the cluster has no named ports: a named port never matches it (as in
 * Kubernetes, where a named port resolves against pods only). Otherwise, when the endpoint's list
 * is known to be complete ({@link FlowEndpoint#namedPortsAreKnown()}) a name missing from it
 * matches nothing, and when it is unknown the rule is UNKNOWN.
 */
final class NetworkPolicyPortMatcher {
  private NetworkPolicyPortMatcher() {}

  /** Absent or empty {@code ports}: every port of every protocol. */
  static Match matches(
      List<NetworkPolicyPort> ports, Protocol protocol, int port, FlowEndpoint destination) {
    if (ports == null || ports.isEmpty()) {
      return Match.YES;
    }
    boolean unknown = false;
    for (int i = 0, n = ports.size(); i < n; i++) {
      Match match = matches(ports.get(i), protocol, port, destination);
      if (match == Match.YES) {
        return Match.YES;
      }
      unknown |= match == Match.UNKNOWN;
    }
    return unknown ? Match.UNKNOWN : Match.NO;
  }

  static Match matches(
      NetworkPolicyPort rulePort, Protocol protocol, int port, FlowEndpoint destination) {
    if (rulePort == null) {
      return Match.YES;
    }
    if (!protocolMatches(rulePort.getProtocol(), protocol)) {
      return Match.NO;
    }
    IntOrString portValue = rulePort.getPort();
    Object value = portValue == null ? null : portValue.getValue();
    if (value == null) {
      // Protocol only: every port of that protocol (endPort without port is invalid; ignored).
      return Match.YES;
    }
    int first;
    if (value instanceof Number number) {
      first = number.intValue();
    } else {
      String name = value.toString();
      first = parseNumber(name);
      if (first < 0) {
        return namedPortMatches(name, protocol, port, destination);
      }
    }
    if (port <= 0) {
      return Match.UNKNOWN;
    }
    Integer endPort = rulePort.getEndPort();
    int last =
        endPort == null ? first : endPort; // endPort < port: empty range, as Kubernetes rejects it
    return Match.of(port >= first && port <= last);
  }

  private static Match namedPortMatches(
      String name, Protocol protocol, int port, FlowEndpoint destination) {
    if (destination.isExternal()) {
      return Match.NO;
    }
    if (!destination.namedPortsAreKnown()) {
      return Match.UNKNOWN;
    }
    List<NamedPort> named = destination.namedPorts();
    for (int i = 0, n = named.size(); i < n; i++) {
      NamedPort candidate = named.get(i);
      Protocol candidateProtocol =
          candidate.protocol() == null ? Protocol.TCP : candidate.protocol();
      if (candidateProtocol == protocol && name.equals(candidate.name())) {
        return port <= 0 ? Match.UNKNOWN : Match.of(candidate.port() == port);
      }
    }
    return Match.NO;
  }

  /** Kubernetes protocol names are case-sensitive; an unknown one matches nothing. */
  private static boolean protocolMatches(String ruleProtocol, Protocol protocol) {
    return ruleProtocol == null ? protocol == Protocol.TCP : ruleProtocol.equals(protocol.name());
  }

  /**
   * A port written as a string of digits ({@code port: "8080"}) reads as the number; Kubernetes
   * would reject it as a port name (names need a letter), so this only adds leniency. -1 if not.
   */
  private static int parseNumber(String text) {
    int length = text.length();
    if (length == 0 || length > 5) {
      return -1;
    }
    int value = 0;
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
