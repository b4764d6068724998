package io.kubewarden.networkenforcer.common.evaluation;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.IPBlock;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.List;
import java.util.Objects;

/**
 * Does a Kubernetes NetworkPolicySpec allow a flow? Kubernetes semantics, per direction:
 *
 * <ul>
 *   <li>{@code podSelector} must select the policy's pod (Ingress: {@code dst}, Egress: {@code
 *       src}), and the direction must be in {@code policyTypes} (absent: Ingress, plus Egress when
 *       egress rules exist); otherwise the policy has no say (NOT_SELECTED). The policy's namespace
 *       is the namespace of that pod.
 *   <li>No rules for a selected direction: deny all. A rule allows the flow when one of its peers
 *       matches (absent/empty {@code from}/{@code to}: any peer) and one of its ports matches
 *       (absent/empty {@code ports}: any port).
 *   <li>Peer: {@code podSelector} alone = those pods in the policy's namespace; {@code
 *       namespaceSelector} alone = every pod of those namespaces; both in one peer = those pods in
 *       those namespaces (AND). A peer with nothing set selects nothing (Kubernetes rejects it).
 *       The peer endpoint must have a namespace for a selector to match.
 *   <li>{@code ipBlock}: a plain CIDR match (minus {@code except}) on the peer's {@code ip}, IPv4
 *       and IPv6, whether the peer is a pod or not. Kubernetes means ipBlock for cluster-external
 *       addresses and plugins differ on pod IPs (Calico matches them, Cilium by default does not);
 *       we take the documented CIDR semantics. Unknown or unparsable ip, or an invalid CIDR: no
 *       match. ipBlock combined with selectors in one peer (invalid in Kubernetes) requires all of
 *       them.
 * </ul>
 *
 * Port 0 (unknown) or a named port the record cannot resolve makes a rule UNKNOWN: the result is
 * UNDETERMINED unless another rule allows the flow outright.
 */
public final class NetworkPolicyEvaluator {

  private static final String INGRESS = "Ingress";
  private static final String EGRESS = "Egress";

  private NetworkPolicyEvaluator() {}

  /**
   * Evaluates the flow {@code src -> dst} on {@code protocol}/{@code port} (0 = unknown) against
   * the spec, from the side of {@code direction}: for Ingress the policy's pods are {@code dst},
   * for Egress {@code src}.
   */
  public static Decision evaluate(
      NetworkPolicySpec spec,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(direction, "direction");
    Objects.requireNonNull(src, "src");
    Objects.requireNonNull(dst, "dst");
    Objects.requireNonNull(protocol, "protocol");
    if (!coversDirection(spec, direction)) {
      return Decision.NOT_SELECTED;
    }
    boolean ingress = direction == Direction.Ingress;
    FlowEndpoint policyPod = ingress ? dst : src;
    FlowEndpoint peer = ingress ? src : dst;
    // podSelector is a struct, not a pointer, in Kubernetes: absent means {} (every pod).
    LabelSelector podSelector = spec.getPodSelector();
    if (podSelector != null && !LabelSelectorMatcher.matches(podSelector, policyPod.podLabels())) {
      return Decision.NOT_SELECTED;
    }
    String policyNamespace = policyPod.namespace();
    boolean unknown = false;
    if (ingress) {
      List<NetworkPolicyIngressRule> rules = spec.getIngress();
      for (int i = 0, n = rules == null ? 0 : rules.size(); i < n; i++) {
        NetworkPolicyIngressRule rule = rules.get(i);
        Match match =
            rule == null
                ? Match.YES
                : ruleMatches(
                    rule.getFrom(), rule.getPorts(), peer, policyNamespace, dst, protocol, port);
        if (match == Match.YES) {
          return Decision.ALLOWED;
        }
        unknown |= match == Match.UNKNOWN;
      }
    } else {
      List<NetworkPolicyEgressRule> rules = spec.getEgress();
      for (int i = 0, n = rules == null ? 0 : rules.size(); i < n; i++) {
        NetworkPolicyEgressRule rule = rules.get(i);
        Match match =
            rule == null
                ? Match.YES
                : ruleMatches(
                    rule.getTo(), rule.getPorts(), peer, policyNamespace, dst, protocol, port);
        if (match == Match.YES) {
          return Decision.ALLOWED;
        }
        unknown |= match == Match.UNKNOWN;
      }
    }
    return unknown ? Decision.UNDETERMINED : Decision.DENIED;
  }

  /** Whether the spec's effective {@code policyTypes} include {@code direction}. */
  static boolean coversDirection(NetworkPolicySpec spec, Direction direction) {
    List<String> types = spec.getPolicyTypes();
    if (types == null || types.isEmpty()) {
      // Kubernetes defaulting: Ingress always, Egress only when there are egress rules.
      return direction == Direction.Ingress
          || (spec.getEgress() != null && !spec.getEgress().isEmpty());
    }
    String wanted = direction == Direction.Ingress ? INGRESS : EGRESS;
    return types.contains(wanted);
  }

  private static Match ruleMatches(
      List<NetworkPolicyPeer> peers,
      List<NetworkPolicyPort> ports,
      FlowEndpoint peer,
      String policyNamespace,
      FlowEndpoint destination,
      Protocol protocol,
      int port) {
    if (!anyPeerMatches(peers, peer, policyNamespace)) {
      return Match.NO;
    }
    return NetworkPolicyPortMatcher.matches(ports, protocol, port, destination);
  }

  private static boolean anyPeerMatches(
      List<NetworkPolicyPeer> peers, FlowEndpoint peer, String policyNamespace) {
    if (peers == null || peers.isEmpty()) {
      return true;
    }
    IpAddress address = null; // parsed at most once, only if some peer has an ipBlock
    boolean addressParsed = false;
    for (int i = 0, n = peers.size(); i < n; i++) {
      NetworkPolicyPeer candidate = peers.get(i);
      if (candidate == null) {
        continue;
      }
      IPBlock ipBlock = candidate.getIpBlock();
      if (ipBlock != null) {
        if (!addressParsed) {
          address = IpAddress.parse(peer.ip());
          addressParsed = true;
        }
        if (!IpBlockMatcher.matches(ipBlock, address)) {
          continue;
        }
      }
      if (selectorsMatch(
          candidate.getPodSelector(),
          candidate.getNamespaceSelector(),
          ipBlock != null,
          peer,
          policyNamespace)) {
        return true;
      }
    }
    return false;
  }

  private static boolean selectorsMatch(
      LabelSelector podSelector,
      LabelSelector namespaceSelector,
      boolean hasIpBlock,
      FlowEndpoint peer,
      String policyNamespace) {
    if (podSelector == null && namespaceSelector == null) {
      return hasIpBlock; // ipBlock alone, or an empty peer that selects nothing
    }
    if (peer.namespace() == null) {
      return false;
    }
    if (namespaceSelector == null) {
      if (!peer.namespace().equals(policyNamespace)) {
        return false;
      }
    } else if (!LabelSelectorMatcher.matchesNamespace(namespaceSelector, peer)) {
      return false;
    }
    return podSelector == null || LabelSelectorMatcher.matches(podSelector, peer.podLabels());
  }
}
