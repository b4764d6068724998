package io.kubewarden.networkenforcer.common.evaluation;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.networking.v1.IPBlock;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.CidrRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.EgressRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.IngressRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.PortProtocol;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.PortRule;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Writes a NetworkPolicy spec of {@link RandomNetworkPolicies}' subset as the CiliumNetworkPolicy
 * spec Cilium's documentation makes equivalent, for a policy living in {@code namespace}. Written
 * from the documentation, not from the product's code; where Cilium has several spellings of one
 * thing the random source picks one, so every spelling gets exercised:
 *
 * <ul>
 *   <li>podSelector: the endpointSelector, keys plain, {@code k8s:} or {@code any:} prefixed.
 *   <li>A direction in the effective policyTypes gets its section; without rules that section is
 *       Cilium's default-deny rule {@code [{}]} (an empty rule allows nothing but puts the
 *       direction in default deny). A direction outside policyTypes gets no section.
 *   <li>A rule without peers: {@code fromEntities/toEntities: [all]} or {@code [cluster, world]}.
 *   <li>podSelector peer: a from/toEndpoints selector; without a namespace key Cilium limits it to
 *       the policy's namespace, or that key is written out. namespaceSelector: its keys under
 *       {@code k8s:io.cilium.k8s.namespace.labels.} plus {@code k8s:io.kubernetes.pod.namespace
 *       Exists} to lift that limit; one naming {@code kubernetes.io/metadata.name} alone may become
 *       {@code k8s:io.kubernetes.pod.namespace: <name>} (or {@code In} the names). Both in one
 *       peer: one selector.
 *   <li>ipBlock: from/toCIDRSet with except, or from/toCIDR when there is no except. Cilium takes
 *       one kind of peer per rule (from/toEndpoints, CIDR, CIDRSet and Entities are mutually
 *       exclusive), so each kind gets its own rule with the same toPorts (rules are OR-ed, so that
 *       is the same set of flows).
 *   <li>ports: toPorts, one port rule each, protocol written out (Kubernetes' default is TCP,
 *       Cilium's is ANY); no port: {@code "0"}, every port of that protocol. endPort: Cilium's
 *       endPort or, drawn at random, the range's ports one by one (ranges stay under 12 ports,
 *       below Cilium's limit of ports per rule), so both spellings meet the Kubernetes evaluator.
 * </ul>
 */
final class NetworkPolicyToCilium {
  static final String NAMESPACE = "k8s:io.kubernetes.pod.namespace";
  static final String NAMESPACE_LABELS = "k8s:io.cilium.k8s.namespace.labels.";
  private static final String[] POD_KEY_PREFIXES = {"", "k8s:", "any:"};

  private final Random random;

  NetworkPolicyToCilium(Random random) {
    this.random = random;
  }

  /** Kubernetes' defaulting of policyTypes: Ingress always, Egress when there are egress rules. */
  static boolean covers(NetworkPolicySpec spec, String type) {
    List<String> types = spec.getPolicyTypes();
    if (types == null || types.isEmpty()) {
      return type.equals("Ingress") || spec.getEgress() != null && !spec.getEgress().isEmpty();
    }
    return types.contains(type);
  }

  /** The directions the policy covers: the ones its CiliumNetworkPolicy has a section for. */
  static List<Direction> directions(NetworkPolicySpec spec) {
    return Stream.of(Direction.Ingress, Direction.Egress)
        .filter(d -> covers(spec, d.name()))
        .toList();
  }

  CiliumPolicy translate(NetworkPolicySpec spec, String namespace) {
    CiliumPolicy cnp = new CiliumPolicy();
    cnp.setEndpointSelector(podKeys(spec.getPodSelector(), new Prefixed()).selector());
    if (covers(spec, "Ingress")) {
      List<IngressRule> rules = new ArrayList<>();
      for (var rule : orEmpty(spec.getIngress())) {
        Peers peers = peers(rule.getFrom(), namespace);
        List<PortRule> toPorts = toPorts(rule.getPorts());
        if (peers.entities != null) {
          IngressRule r = new IngressRule();
          r.setFromEntities(peers.entities);
          r.setToPorts(toPorts);
          rules.add(r);
        }
        if (!peers.endpoints.isEmpty()) {
          rules.add(new IngressRule(peers.endpoints, null, null, toPorts));
        }
        if (!peers.cidrs.isEmpty()) {
          rules.add(new IngressRule(null, peers.cidrs, null, toPorts));
        }
        if (!peers.cidrSets.isEmpty()) {
          rules.add(new IngressRule(null, null, peers.cidrSets, toPorts));
        }
      }
      cnp.setIngress(rules.isEmpty() ? List.of(new IngressRule()) : rules);
    }
    if (covers(spec, "Egress")) {
      List<EgressRule> rules = new ArrayList<>();
      for (var rule : orEmpty(spec.getEgress())) {
        Peers peers = peers(rule.getTo(), namespace);
        List<PortRule> toPorts = toPorts(rule.getPorts());
        if (peers.entities != null) {
          EgressRule r = new EgressRule();
          r.setToEntities(peers.entities);
          r.setToPorts(toPorts);
          rules.add(r);
        }
        if (!peers.endpoints.isEmpty()) {
          rules.add(new EgressRule(peers.endpoints, null, null, null, toPorts));
        }
        if (!peers.cidrs.isEmpty()) {
          rules.add(new EgressRule(null, null, peers.cidrs, null, toPorts));
        }
        if (!peers.cidrSets.isEmpty()) {
          rules.add(new EgressRule(null, null, null, peers.cidrSets, toPorts));
        }
      }
      cnp.setEgress(rules.isEmpty() ? List.of(new EgressRule()) : rules);
    }
    return cnp;
  }

  /** The peers of one rule sorted by the Cilium field that says them. */
  private static final class Peers {
    List<String> entities;
    final List<LabelSelector> endpoints = new ArrayList<>();
    final List<String> cidrs = new ArrayList<>();
    final List<CidrRule> cidrSets = new ArrayList<>();
  }

  private Peers peers(List<NetworkPolicyPeer> from, String namespace) {
    Peers peers = new Peers();
    if (from == null || from.isEmpty()) {
      peers.entities = random.nextBoolean() ? List.of("all") : List.of("cluster", "world");
      return peers;
    }
    for (NetworkPolicyPeer peer : from) {
      IPBlock block = peer.getIpBlock();
      if (block != null) {
        boolean noExcept = block.getExcept() == null || block.getExcept().isEmpty();
        if (noExcept && random.nextBoolean()) {
          peers.cidrs.add(block.getCidr());
        } else {
          peers.cidrSets.add(new CidrRule(block.getCidr(), block.getExcept()));
        }
        continue;
      }
      Prefixed selector = new Prefixed();
      if (peer.getPodSelector() != null) {
        podKeys(peer.getPodSelector(), selector);
      }
      LabelSelector namespaces = peer.getNamespaceSelector();
      String single = namespaces == null ? null : singleNamespace(namespaces);
      List<String> named = namespaces == null ? null : namespacesIn(namespaces);
      if (namespaces == null) {
        if (random.nextBoolean()) {
          selector.labels.put(NAMESPACE, namespace); // what Cilium adds when it is left out
        }
      } else if (single != null && random.nextBoolean()) {
        selector.labels.put(NAMESPACE, single);
      } else if (named != null && random.nextBoolean()) {
        selector.expressions.add(new LabelSelectorRequirement(NAMESPACE, "In", named));
      } else {
        selector.add(namespaces, NAMESPACE_LABELS);
        selector.expressions.add(new LabelSelectorRequirement(NAMESPACE, "Exists", null));
      }
      peers.endpoints.add(selector.selector());
    }
    return peers;
  }

  /** The namespace a selector names by {@code kubernetes.io/metadata.name} alone, else null. */
  private static String singleNamespace(LabelSelector selector) {
    Map<String, String> labels = selector.getMatchLabels();
    boolean noExpressions =
        selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty();
    return noExpressions && labels != null && labels.size() == 1
        ? labels.get(LabelSelectorMatcher.NAMESPACE_NAME_LABEL)
        : null;
  }

  /** The namespaces a selector names by {@code kubernetes.io/metadata.name In} alone, else null. */
  private static List<String> namespacesIn(LabelSelector selector) {
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    boolean noLabels = selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty();
    if (!noLabels || expressions == null || expressions.size() != 1) {
      return null;
    }
    LabelSelectorRequirement only = expressions.get(0);
    return only.getKey().equals(LabelSelectorMatcher.NAMESPACE_NAME_LABEL)
            && only.getOperator().equals("In")
        ? only.getValues()
        : null;
  }

  private Prefixed podKeys(LabelSelector selector, Prefixed into) {
    into.add(selector, POD_KEY_PREFIXES[random.nextInt(POD_KEY_PREFIXES.length)]);
    return into;
  }

  private List<PortRule> toPorts(List<NetworkPolicyPort> ports) {
    if (ports == null || ports.isEmpty()) {
      return null;
    }
    List<PortRule> rules = new ArrayList<>();
    for (NetworkPolicyPort port : ports) {
      String protocol = port.getProtocol() == null ? "TCP" : port.getProtocol();
      List<PortProtocol> list = new ArrayList<>();
      if (port.getPort() == null) {
        list.add(new PortProtocol("0", protocol));
      } else {
        int first = port.getPort().getIntVal();
        int last = port.getEndPort() == null ? first : port.getEndPort();
        if (port.getEndPort() != null && random.nextBoolean()) {
          list.add(new PortProtocol(Integer.toString(first), last, protocol));
        } else {
          for (int p = first; p <= last; p++) {
            list.add(new PortProtocol(Integer.toString(p), protocol));
          }
        }
      }
      rules.add(new PortRule(list, null));
    }
    return rules;
  }

  /** A Cilium selector being built from Kubernetes selectors, keys under a prefix. */
  private static final class Prefixed {
    final Map<String, String> labels = new LinkedHashMap<>();
    final List<LabelSelectorRequirement> expressions = new ArrayList<>();

    void add(LabelSelector selector, String prefix) {
      if (selector.getMatchLabels() != null) {
        selector.getMatchLabels().forEach((k, v) -> labels.put(prefix + k, v));
      }
      if (selector.getMatchExpressions() != null) {
        for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
          expressions.add(
              new LabelSelectorRequirement(prefix + r.getKey(), r.getOperator(), r.getValues()));
        }
      }
    }

    LabelSelector selector() {
      return new LabelSelector(
          expressions.isEmpty() ? null : List.copyOf(expressions),
          labels.isEmpty() ? null : Map.copyOf(labels));
    }
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
