package io.kubewarden.networkenforcer.common.evaluation;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.networking.v1.IPBlock;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Random NetworkPolicy specs from the subset Cilium can say as well: selectors over {@link
 * DifferentialCluster}'s labels, ipBlocks with except, numeric ports with TCP/UDP/SCTP and endPort,
 * empty rules, every policyTypes form. Left out on purpose: named ports (the Cilium evaluator does
 * not resolve them, see {@code CiliumNetworkPolicyDifferencesTest}) and peers Kubernetes rejects
 * (empty peer, ipBlock with a selector).
 */
final class RandomNetworkPolicies {
  private static final String[] PROTOCOLS = {null, "TCP", "UDP", "SCTP"};

  private final Random random;
  private final DifferentialCluster cluster;

  RandomNetworkPolicies(Random random, DifferentialCluster cluster) {
    this.random = random;
    this.cluster = cluster;
  }

  NetworkPolicySpec next() {
    NetworkPolicySpec spec = new NetworkPolicySpec();
    // Light, so that the policy selects its pod often enough to have a say.
    spec.setPodSelector(selector(DifferentialCluster.POD_LABELS, 2));
    spec.setPolicyTypes(
        switch (random.nextInt(5)) {
          case 0 -> List.of("Ingress");
          case 1 -> List.of("Egress");
          case 2 -> List.of("Ingress", "Egress");
          case 3 -> List.of();
          default -> null;
        });
    if (random.nextInt(4) > 0) {
      List<NetworkPolicyIngressRule> rules = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        NetworkPolicyIngressRule rule = new NetworkPolicyIngressRule();
        rule.setFrom(peers());
        rule.setPorts(ports());
        rules.add(rule);
      }
      spec.setIngress(rules);
    }
    if (random.nextInt(4) > 0) {
      List<NetworkPolicyEgressRule> rules = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        NetworkPolicyEgressRule rule = new NetworkPolicyEgressRule();
        rule.setTo(peers());
        rule.setPorts(ports());
        rules.add(rule);
      }
      spec.setEgress(rules);
    }
    return spec;
  }

  /** A selector over {@code labels} (key to possible values), of up to {@code most} - 1 parts. */
  private LabelSelector selector(Map<String, List<String>> labels, int most) {
    List<String> keys = List.copyOf(labels.keySet());
    Map<String, String> matchLabels = null;
    List<LabelSelectorRequirement> expressions = null;
    for (int i = random.nextInt(most); i > 0; i--) {
      String key = pick(keys);
      if (matchLabels == null) {
        matchLabels = new LinkedHashMap<>();
      }
      matchLabels.put(key, pick(labels.get(key)));
    }
    for (int i = random.nextInt(most) - random.nextInt(2); i > 0; i--) {
      String key = pick(keys);
      String operator = pick(List.of("In", "NotIn", "Exists", "DoesNotExist"));
      List<String> values = null;
      if (operator.equals("In") || operator.equals("NotIn")) {
        values = new ArrayList<>();
        for (int v = 1 + random.nextInt(2); v > 0; v--) {
          values.add(pick(labels.get(key)));
        }
      }
      if (expressions == null) {
        expressions = new ArrayList<>();
      }
      expressions.add(new LabelSelectorRequirement(key, operator, values));
    }
    return new LabelSelector(expressions, matchLabels);
  }

  /** null or [] (every peer) about one time in five, else one to three peers. */
  private List<NetworkPolicyPeer> peers() {
    int shape = random.nextInt(10);
    if (shape == 0) {
      return null;
    }
    if (shape == 1) {
      return List.of();
    }
    List<NetworkPolicyPeer> peers = new ArrayList<>();
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      NetworkPolicyPeer peer = new NetworkPolicyPeer();
      switch (random.nextInt(4)) {
        case 0 -> peer.setPodSelector(selector(DifferentialCluster.POD_LABELS, 3));
        case 1 ->
            peer.setNamespaceSelector(selector(DifferentialCluster.NAMESPACE_LABEL_VALUES, 3));
        case 2 -> {
          peer.setPodSelector(selector(DifferentialCluster.POD_LABELS, 3));
          peer.setNamespaceSelector(selector(DifferentialCluster.NAMESPACE_LABEL_VALUES, 3));
        }
        default -> peer.setIpBlock(ipBlock());
      }
      peers.add(peer);
    }
    return peers;
  }

  private IPBlock ipBlock() {
    String cidr = cluster.randomCidr();
    List<String> except = null;
    int n = random.nextInt(4) - 1;
    if (n > 0) {
      except = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String inside = DifferentialCluster.subnetOf(cidr, random);
        if (inside != null) {
          except.add(inside);
        }
      }
    }
    return new IPBlock(cidr, except);
  }

  /** null or [] (every port) about one time in four, else one to three ports. */
  private List<NetworkPolicyPort> ports() {
    int shape = random.nextInt(8);
    if (shape == 0) {
      return null;
    }
    if (shape == 1) {
      return List.of();
    }
    List<NetworkPolicyPort> ports = new ArrayList<>();
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      NetworkPolicyPort port = new NetworkPolicyPort();
      port.setProtocol(PROTOCOLS[random.nextInt(PROTOCOLS.length)]);
      int kind = random.nextInt(6);
      if (kind > 0) {
        int number = pick(DifferentialCluster.PORTS);
        port.setPort(new IntOrString(number));
        if (kind == 1) {
          port.setEndPort(number + random.nextInt(12));
        }
      } // kind 0: protocol only, every port of it
      ports.add(port);
    }
    return ports;
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /** The policy's ipBlocks, so that external addresses land inside them often. */
  static List<String> cidrs(NetworkPolicySpec np) {
    List<String> cidrs = new ArrayList<>();
    Stream.concat(
            np.getIngress() == null
                ? Stream.empty()
                : np.getIngress().stream().map(r -> r.getFrom()),
            np.getEgress() == null ? Stream.empty() : np.getEgress().stream().map(r -> r.getTo()))
        .filter(peers -> peers != null)
        .flatMap(List::stream)
        .map(NetworkPolicyPeer::getIpBlock)
        .filter(block -> block != null)
        .forEach(
            block -> {
              cidrs.add(block.getCidr());
              if (block.getExcept() != null) {
                cidrs.addAll(block.getExcept());
              }
            });
    return cidrs;
  }

  /** Every port of the policy's rules, so that flows often use them. */
  static List<NetworkPolicyPort> ports(NetworkPolicySpec np) {
    return Stream.concat(
            np.getIngress() == null
                ? Stream.empty()
                : np.getIngress().stream().map(r -> r.getPorts()),
            np.getEgress() == null
                ? Stream.empty()
                : np.getEgress().stream().map(r -> r.getPorts()))
        .filter(ports -> ports != null)
        .flatMap(List::stream)
        .toList();
  }

  /** A flow's protocol and port. */
  record Wire(Protocol protocol, int port) {}

  /**
   * Half the time (when the policy has ports) one of the policy's own ports, its range's edges or
   * just past them: the interesting cases, which random ports would reach rarely. Otherwise, and
   * for an unknown port (0), the protocol and port given.
   */
  static Wire nearPolicyPorts(
      Random random, List<NetworkPolicyPort> ports, Protocol protocol, int port) {
    if (ports.isEmpty() || !random.nextBoolean()) {
      return new Wire(protocol, port);
    }
    NetworkPolicyPort wanted = ports.get(random.nextInt(ports.size()));
    if (wanted.getProtocol() != null && random.nextInt(5) > 0) {
      protocol = Protocol.valueOf(wanted.getProtocol());
    } else if (random.nextInt(5) > 0) {
      protocol = Protocol.TCP;
    }
    if (wanted.getPort() != null && port != 0) {
      int first = wanted.getPort().getIntVal();
      int last = wanted.getEndPort() == null ? first : wanted.getEndPort();
      port = first - 1 + random.nextInt(last - first + 3);
    }
    return new Wire(protocol, port);
  }
}
