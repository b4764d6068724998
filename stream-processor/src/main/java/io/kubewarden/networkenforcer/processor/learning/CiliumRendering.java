package io.kubewarden.networkenforcer.processor.learning;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.CidrRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.EgressRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.FqdnSelector;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.HttpRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.IngressRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.L7Rules;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.PortProtocol;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.PortRule;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * Renders a learned allow-list as a CiliumNetworkPolicy spec. In-cluster peers become {@code
 * to/fromEndpoints} selectors with their namespace ({@value #NAMESPACE_KEY}); an egress peer
 * outside the cluster whose DNS names are known becomes {@code toFQDNs} {@code matchName}s instead
 * of its address, so the next address behind the same name (a cloud API, a CDN) stays allowed; the
 * peers sharing a name share one rule (one rule per set of ports, names sorted), followed by the
 * rule that lets the pods resolve names through Cilium's DNS proxy, without which {@code toFQDNs}
 * matches nothing. Addresses without a name, ingress from outside, and the widened "outside the
 * cluster" rule stay CIDRs (that rule is entity {@code world} with the entities option). A learned
 * peer that is the cluster DNS itself, on DNS ports only, is allowed by that DNS rule (its evidence
 * points there) instead of a second rule to the same pods: a reviewer reads one rule for the
 * lookups.
 *
 * <p>Equal allow-lists give equal specs: peers in key order, FQDN rules after them, the DNS rule
 * last.
 */
final class CiliumRendering {
  static final String NAMESPACE_KEY = "k8s:io.kubernetes.pod.namespace";

  /** Cilium's entity of every end outside the cluster, whatever the cluster's ranges. */
  static final String WORLD = "world";

  /**
   * The cluster DNS, as kube-dns and CoreDNS deployments label their pods in kube-system; its
   * {@code rules.dns} pattern {@code *} lets every lookup through the proxy (in-cluster service
   * names too), which is what makes the proxy learn the addresses of the allowed names.
   */
  static EgressRule dnsRule() {
    return new EgressRule(
        List.of(
            new LabelSelectorBuilder()
                .withMatchLabels(
                    new TreeMap<>(Map.of(NAMESPACE_KEY, "kube-system", "k8s:k8s-app", "kube-dns")))
                .build()),
        null,
        null,
        null,
        List.of(
            new PortRule(
                List.of(new PortProtocol("53", "UDP"), new PortProtocol("53", "TCP")),
                new L7Rules(List.of(FqdnSelector.pattern("*"))))));
  }

  /** The spec and, for each peer key, the index of the rule that allows it. */
  record Rendered(CiliumPolicy policy, Map<String, Integer> ruleOfPeer) {}

  private CiliumRendering() {}

  static Rendered render(Direction direction, LearnedAllowList state) {
    return render(direction, state, false);
  }

  /**
   * @param entities the widened peer ({@link ExternalPeerRule#OUTSIDE_KEY}) as entity {@code world}
   *     rather than its CIDRs
   */
  static Rendered render(Direction direction, LearnedAllowList state, boolean entities) {
    Map<String, Integer> ruleOfPeer = new HashMap<>();
    LabelSelector own = copy(state.ownSelector());
    if (direction == Direction.Ingress) {
      List<IngressRule> rules = new ArrayList<>();
      state
          .peers()
          .forEach(
              (key, peer) -> {
                ruleOfPeer.put(key, rules.size());
                IngressRule rule;
                if (!peer.outsideCluster()) {
                  rule = new IngressRule(List.of(endpoint(peer)), null, null, ports(peer.ports()));
                } else if (entities && ExternalPeerRule.OUTSIDE_KEY.equals(key)) {
                  rule = new IngressRule(null, null, null, ports(peer.ports()));
                  rule.setFromEntities(List.of(WORLD));
                } else {
                  rule = new IngressRule(null, cidrs(peer), cidrSets(peer), ports(peer.ports()));
                }
                rules.add(rule);
              });
      return new Rendered(new CiliumPolicy(own, rules, null), ruleOfPeer);
    }
    List<EgressRule> rules = new ArrayList<>();
    boolean dnsRuleAdded =
        state.peers().entrySet().stream()
            .anyMatch(e -> e.getValue().outsideCluster() && byName(e.getKey(), e.getValue()));
    List<String> clusterDnsPeers = new ArrayList<>();
    // name -> its ports, over every peer that carries the name
    SortedMap<String, SortedMap<String, LearnedPort>> portsOfName = new TreeMap<>();
    Map<String, SortedSet<String>> namesOfPeer = new LinkedHashMap<>();
    state
        .peers()
        .forEach(
            (key, peer) -> {
              if (dnsRuleAdded && isClusterDnsOnItsPorts(peer)) {
                clusterDnsPeers.add(key);
              } else if (!peer.outsideCluster()) {
                ruleOfPeer.put(key, rules.size());
                rules.add(
                    new EgressRule(List.of(endpoint(peer)), null, null, null, ports(peer.ports())));
              } else if (byName(key, peer)) {
                namesOfPeer.put(key, peer.dnsNames());
                for (String name : peer.dnsNames()) {
                  portsOfName.computeIfAbsent(name, n -> new TreeMap<>()).putAll(peer.ports());
                }
              } else if (entities && ExternalPeerRule.OUTSIDE_KEY.equals(key)) {
                ruleOfPeer.put(key, rules.size());
                EgressRule rule = new EgressRule(null, null, null, null, ports(peer.ports()));
                rule.setToEntities(List.of(WORLD));
                rules.add(rule);
              } else {
                ruleOfPeer.put(key, rules.size());
                rules.add(
                    new EgressRule(null, null, cidrs(peer), cidrSets(peer), ports(peer.ports())));
              }
            });
    if (!portsOfName.isEmpty()) {
      // One rule per set of ports, in the order of its first name.
      Map<List<String>, List<String>> namesByPorts = new LinkedHashMap<>();
      Map<List<String>, SortedMap<String, LearnedPort>> portsByKey = new HashMap<>();
      portsOfName.forEach(
          (name, ports) -> {
            List<String> portKeys = List.copyOf(ports.keySet());
            namesByPorts.computeIfAbsent(portKeys, k -> new ArrayList<>()).add(name);
            portsByKey.put(portKeys, ports);
          });
      Map<String, Integer> ruleOfName = new HashMap<>();
      namesByPorts.forEach(
          (portKeys, names) -> {
            for (String name : names) {
              ruleOfName.put(name, rules.size());
            }
            rules.add(
                new EgressRule(
                    null,
                    names.stream().map(FqdnSelector::name).toList(),
                    null,
                    null,
                    ports(portsByKey.get(portKeys))));
          });
      namesOfPeer.forEach((key, names) -> ruleOfPeer.put(key, ruleOfName.get(names.first())));
      for (String key : clusterDnsPeers) {
        ruleOfPeer.put(key, rules.size());
      }
      rules.add(dnsRule());
    }
    return new Rendered(new CiliumPolicy(own, null, rules), ruleOfPeer);
  }

  /**
   * A peer learned by name (or an address peer with DNS names, as a kubernetes-backend allow-list
   * has them) is allowed by name; the widened peer keeps its CIDRs (it stands for every outside
   * address of its ports, named or not).
   */
  private static boolean byName(String key, LearnedPeer peer) {
    return !peer.dnsNames().isEmpty() && !ExternalPeerRule.OUTSIDE_KEY.equals(key);
  }

  /**
   * The pods {@link #dnsRule()} selects (kube-system, {@code k8s-app: kube-dns}, with or without
   * Cilium's {@code k8s:} source prefix, nothing else), learned on 53/UDP or 53/TCP only: the DNS
   * rule allows all of it. A peer with another port too (CoreDNS's metrics on 9153) keeps its own
   * rule.
   */
  private static boolean isClusterDnsOnItsPorts(LearnedPeer peer) {
    LabelSelector selector = peer.selector();
    if (peer.outsideCluster()
        || !"kube-system".equals(peer.namespace())
        || selector == null
        || selector.getMatchExpressions() != null && !selector.getMatchExpressions().isEmpty()
        || selector.getMatchLabels() == null
        || selector.getMatchLabels().size() != 1) {
      return false;
    }
    Map.Entry<String, String> label = selector.getMatchLabels().entrySet().iterator().next();
    boolean dnsPods =
        ("k8s-app".equals(label.getKey()) || "k8s:k8s-app".equals(label.getKey()))
            && "kube-dns".equals(label.getValue());
    return dnsPods
        && !peer.ports().isEmpty()
        && peer.ports().values().stream()
            .allMatch(
                p ->
                    p.port() == 53
                        && (p.protocol() == Protocol.UDP || p.protocol() == Protocol.TCP));
  }

  private static LabelSelector endpoint(LearnedPeer peer) {
    LabelSelectorBuilder selector = new LabelSelectorBuilder();
    Map<String, String> labels = new TreeMap<>();
    if (peer.selector() != null) {
      if (peer.selector().getMatchLabels() != null) {
        labels.putAll(peer.selector().getMatchLabels());
      }
      if (peer.selector().getMatchExpressions() != null
          && !peer.selector().getMatchExpressions().isEmpty()) {
        selector.withMatchExpressions(
            new LabelSelectorBuilder(peer.selector()).build().getMatchExpressions());
      }
    }
    labels.put(NAMESPACE_KEY, peer.namespace());
    return selector.withMatchLabels(labels).build();
  }

  private static List<String> cidrs(LearnedPeer peer) {
    List<String> cidrs = new ArrayList<>();
    for (LearnedIpBlock block : peer.ipBlocks()) {
      if (block.except().isEmpty()) {
        cidrs.add(block.cidr());
      }
    }
    return cidrs.isEmpty() ? null : cidrs;
  }

  private static List<CidrRule> cidrSets(LearnedPeer peer) {
    List<CidrRule> sets = new ArrayList<>();
    for (LearnedIpBlock block : peer.ipBlocks()) {
      if (!block.except().isEmpty()) {
        sets.add(new CidrRule(block.cidr(), new ArrayList<>(block.except())));
      }
    }
    return sets.isEmpty() ? null : sets;
  }

  /**
   * The ports without HTTP requests as one entry (as always), then each port with learned requests
   * as an entry of its own with its {@code rules.http} (Cilium's HTTP rules hold for every port of
   * their entry).
   */
  private static List<PortRule> ports(Map<String, LearnedPort> ports) {
    List<PortProtocol> plain = new ArrayList<>();
    List<PortRule> withHttp = new ArrayList<>();
    for (LearnedPort p : ports.values()) {
      PortProtocol port = new PortProtocol(Integer.toString(p.port()), p.protocol().name());
      if (p.http().isEmpty()) {
        plain.add(port);
      } else {
        withHttp.add(
            new PortRule(
                List.of(port),
                L7Rules.http(p.http().stream().map(CiliumRendering::httpRule).toList())));
      }
    }
    if (withHttp.isEmpty()) {
      return List.of(new PortRule(plain, null));
    }
    List<PortRule> out = new ArrayList<>();
    if (!plain.isEmpty()) {
      out.add(new PortRule(plain, null));
    }
    out.addAll(withHttp);
    return out;
  }

  /**
   * A learned request ({@link LearnedPort#route}) as Cilium's rule: the method as it is, the path
   * as a regular expression for exactly that path, or for a cut path every path that starts so.
   */
  static HttpRule httpRule(String route) {
    int space = route.indexOf(' ');
    String path = route.substring(space + 1);
    boolean truncated = path.endsWith(LearnedPort.TRUNCATED);
    if (truncated) {
      path = path.substring(0, path.length() - LearnedPort.TRUNCATED.length());
    }
    return new HttpRule(
        route.substring(0, space), "^" + RegexEscape.literal(path) + (truncated ? ".*" : "") + "$");
  }

  private static LabelSelector copy(LabelSelector selector) {
    return selector == null ? null : new LabelSelectorBuilder(selector).build();
  }
}
