package io.kubewarden.networkenforcer.common.evaluation;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.networking.v1.IPBlock;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.CidrRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.PortProtocol;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.PortRule;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Does a CiliumNetworkPolicy spec (our {@link CiliumPolicy} subset) allow a flow? Cilium's
 * semantics, per direction:
 *
 * <ul>
 *   <li>{@code endpointSelector} must select the policy's pod (Ingress: {@code dst}, Egress: {@code
 *       src}); otherwise NOT_SELECTED. Selector keys may carry Cilium's source prefix ({@code
 *       k8s:}, {@code any:}); {@code io.kubernetes.pod.namespace} is the pod's namespace and {@code
 *       io.cilium.k8s.namespace.labels.<key>} its namespace's labels.
 *   <li>The spec's rules of that direction are an allow-list: a flow no rule allows is DENIED, also
 *       when there is no rule (the writer renders that as Cilium's default-deny rule {@code {}}).
 *   <li>A rule allows the flow when one of its peers matches and one of its ports matches (no
 *       {@code toPorts}: every port). Peers: {@code to/fromEndpoints} (a selector without the
 *       namespace key selects pods of the policy's namespace only); {@code to/fromCIDR} and {@code
 *       CIDRSet} (minus {@code except}) for ends outside the cluster only, as Cilium applies CIDR
 *       rules; {@code toFQDNs} for an end outside the cluster one of whose DNS names (what the data
 *       plane resolved its address to) matches, see {@link FqdnMatcher}. A rule without any peer
 *       selects nothing. {@code to/fromEntities}: {@code world} is any end outside the cluster,
 *       {@code cluster} any pod, {@code all} either; the other entities (host, remote-node,
 *       kube-apiserver, cluster-mesh, ...) name ends that are never evaluated here (nodes are not
 *       learned), so they match no flow.
 *   <li>Ports: a number as a string with protocol TCP, UDP, SCTP or ANY/absent (any of them); with
 *       {@code endPort} above it, the range of both. Unknown port (0) or a named port against a
 *       rule with ports: UNDETERMINED unless another rule allows the flow.
 * </ul>
 *
 * {@code rules.dns} only filters DNS lookups through Cilium's DNS proxy; at L4 its port rule allows
 * the connection like any other.
 *
 * <p>{@code rules.http}: a flow that carries its HTTP request (Hubble's L7 record, {@link
 * HttpRequest}) is allowed by the port entry only when one of its HTTP rules matches: {@code
 * method} and {@code path} are regular expressions matched against the whole method and path, an
 * absent one matches anything (Cilium: a request is allowed when at least one rule matches; a port
 * allowed elsewhere without L7 rules allows every request). A flow without its request (the L3/L4
 * record of the connection) is allowed at L3/L4 as Cilium does, which hands the connection to its
 * proxy. An expression Java cannot read leaves that entry UNDETERMINED.
 */
public final class CiliumPolicyEvaluator {
  static final String NAMESPACE_KEY = "io.kubernetes.pod.namespace";
  static final String NAMESPACE_LABELS_PREFIX = "io.cilium.k8s.namespace.labels.";

  private CiliumPolicyEvaluator() {}

  public static Decision evaluate(
      CiliumPolicy spec,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port) {
    return evaluate(spec, direction, src, dst, protocol, port, null);
  }

  /**
   * @param http the flow's HTTP request, matched against {@code rules.http}; null when it carries
   *     none
   */
  public static Decision evaluate(
      CiliumPolicy spec,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port,
      HttpRequest http) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(direction, "direction");
    Objects.requireNonNull(src, "src");
    Objects.requireNonNull(dst, "dst");
    Objects.requireNonNull(protocol, "protocol");
    boolean ingress = direction == Direction.Ingress;
    FlowEndpoint policyPod = ingress ? dst : src;
    FlowEndpoint peer = ingress ? src : dst;
    if (policyPod.isExternal()
        || policyPod.namespace() == null
        || !selects(spec.getEndpointSelector(), policyPod, policyPod.namespace())) {
      return Decision.NOT_SELECTED;
    }
    String namespace = policyPod.namespace();
    boolean unknown = false;
    if (ingress) {
      for (CiliumPolicy.IngressRule rule : orEmpty(spec.getIngress())) {
        if (rule == null) {
          continue;
        }
        boolean peerMatches =
            anyEndpoint(rule.getFromEndpoints(), peer, namespace)
                || anyEntity(rule.getFromEntities(), peer)
                || anyCidr(rule.getFromCIDR(), rule.getFromCIDRSet(), peer);
        Match m = peerMatches ? ports(rule.getToPorts(), protocol, port, http) : Match.NO;
        if (m == Match.YES) {
          return Decision.ALLOWED;
        }
        unknown |= m == Match.UNKNOWN;
      }
    } else {
      for (CiliumPolicy.EgressRule rule : orEmpty(spec.getEgress())) {
        if (rule == null) {
          continue;
        }
        boolean peerMatches =
            anyEndpoint(rule.getToEndpoints(), peer, namespace)
                || anyEntity(rule.getToEntities(), peer)
                || anyCidr(rule.getToCIDR(), rule.getToCIDRSet(), peer)
                || peer.isExternal()
                    && FqdnMatcher.anyMatches(rule.getToFQDNs(), peer.external().dnsNames());
        Match m = peerMatches ? ports(rule.getToPorts(), protocol, port, http) : Match.NO;
        if (m == Match.YES) {
          return Decision.ALLOWED;
        }
        unknown |= m == Match.UNKNOWN;
      }
    }
    return unknown ? Decision.UNDETERMINED : Decision.DENIED;
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static boolean anyEntity(List<String> entities, FlowEndpoint peer) {
    if (entities == null) {
      return false;
    }
    for (String entity : entities) {
      if (entity != null && entityMatches(entity, peer)) {
        return true;
      }
    }
    return false;
  }

  private static boolean entityMatches(String entity, FlowEndpoint peer) {
    return switch (entity) {
      case "all" -> true;
      case "world" -> peer.isExternal();
      case "cluster" -> !peer.isExternal() && peer.namespace() != null;
      default -> false;
    };
  }

  private static boolean anyEndpoint(
      List<LabelSelector> selectors, FlowEndpoint peer, String policyNamespace) {
    if (selectors == null || peer.isExternal() || peer.namespace() == null) {
      return false;
    }
    for (LabelSelector selector : selectors) {
      if (selects(selector, peer, policyNamespace)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a Cilium endpoint selector selects the pod: its keys without the source prefix, the
   * namespace given by the namespace key or else the policy's own.
   */
  static boolean selects(LabelSelector selector, FlowEndpoint pod, String policyNamespace) {
    if (selector == null) {
      return false;
    }
    LabelSelector plain = withoutSourcePrefix(selector);
    if (!namesNamespace(plain) && !Objects.equals(pod.namespace(), policyNamespace)) {
      return false;
    }
    return LabelSelectorMatcher.matches(plain, ciliumLabels(pod));
  }

  private static boolean namesNamespace(LabelSelector selector) {
    if (selector.getMatchLabels() != null && selector.getMatchLabels().containsKey(NAMESPACE_KEY)) {
      return true;
    }
    return selector.getMatchExpressions() != null
        && selector.getMatchExpressions().stream().anyMatch(r -> NAMESPACE_KEY.equals(r.getKey()));
  }

  private static LabelSelector withoutSourcePrefix(LabelSelector selector) {
    Map<String, String> labels = null;
    if (selector.getMatchLabels() != null) {
      labels = new LinkedHashMap<>();
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        labels.put(plainKey(e.getKey()), e.getValue());
      }
    }
    List<LabelSelectorRequirement> expressions = null;
    if (selector.getMatchExpressions() != null) {
      expressions = new ArrayList<>();
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        expressions.add(
            new LabelSelectorRequirement(plainKey(r.getKey()), r.getOperator(), r.getValues()));
      }
    }
    return new LabelSelector(expressions, labels);
  }

  private static String plainKey(String key) {
    if (key == null) {
      return null;
    }
    if (key.startsWith("k8s:")) {
      return key.substring(4);
    }
    return key.startsWith("any:") ? key.substring(4) : key;
  }

  /** The pod's labels as Cilium sees them: its own, its namespace, its namespace's labels. */
  private static Map<String, String> ciliumLabels(FlowEndpoint pod) {
    Map<String, String> labels = new HashMap<>(pod.podLabels());
    labels.put(NAMESPACE_KEY, pod.namespace());
    pod.effectiveNamespaceLabels().forEach((k, v) -> labels.put(NAMESPACE_LABELS_PREFIX + k, v));
    return labels;
  }

  private static boolean anyCidr(List<String> cidrs, List<CidrRule> sets, FlowEndpoint peer) {
    if (!peer.isExternal() || peer.ip() == null || cidrs == null && sets == null) {
      return false;
    }
    IpAddress address = IpAddress.parse(peer.ip());
    for (String cidr : orEmpty(cidrs)) {
      if (IpBlockMatcher.matches(new IPBlock(cidr, null), address)) {
        return true;
      }
    }
    for (CidrRule set : orEmpty(sets)) {
      if (set != null
          && IpBlockMatcher.matches(new IPBlock(set.getCidr(), set.getExcept()), address)) {
        return true;
      }
    }
    return false;
  }

  private static Match ports(List<PortRule> rules, Protocol protocol, int port, HttpRequest http) {
    if (rules == null || rules.isEmpty()) {
      return Match.YES;
    }
    boolean unknown = false;
    for (PortRule rule : rules) {
      if (rule == null) {
        return Match.YES; // an empty entry: every port
      }
      Match l7 = HttpRuleMatcher.matches(rule.getRules(), http);
      if (l7 == Match.NO) {
        continue; // its requests are not this one
      }
      if (rule.getPorts() == null || rule.getPorts().isEmpty()) {
        if (l7 == Match.YES) {
          return Match.YES; // a port rule without ports: every port
        }
        unknown = true;
        continue;
      }
      for (PortProtocol p : rule.getPorts()) {
        if (p == null || !protocolMatches(p.getProtocol(), protocol)) {
          continue;
        }
        Integer number = number(p.getPort());
        if (number != null && number == 0) {
          // Cilium: port 0 is every port, so an unknown one too.
          if (l7 == Match.YES) {
            return Match.YES;
          }
          unknown = true;
          continue;
        }
        if (number == null || port == 0) {
          unknown = true; // a named port, or a flow without its port
        } else if (port >= number && port <= p.lastPort(number)) {
          if (l7 == Match.YES) {
            return Match.YES;
          }
          unknown = true;
        }
      }
    }
    return unknown ? Match.UNKNOWN : Match.NO;
  }

  private static boolean protocolMatches(String wanted, Protocol protocol) {
    return wanted == null
        || wanted.isEmpty()
        || wanted.equalsIgnoreCase("ANY")
        || wanted.equalsIgnoreCase(protocol.name());
  }

  private static Integer number(String port) {
    if (port == null || port.isEmpty()) {
      return 0;
    }
    try {
      return Integer.parseInt(port);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
