package io.kubewarden.networkenforcer.writer.view;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.common.report.ReportModel.PortCount;
import io.kubewarden.networkenforcer.common.report.ReportModel.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The peers and ports a CiliumNetworkPolicy's rules of one direction allow. */
final class CiliumPeers {
  private CiliumPeers() {}

  static List<AllowedPeer> of(
      String namespace, Direction direction, CiliumPolicy c, PeerResolver peers) {
    List<AllowedPeer> out = new ArrayList<>();
    if (direction == Direction.Ingress && c.getIngress() != null) {
      for (CiliumPolicy.IngressRule r : c.getIngress()) {
        List<PortCount> ports = ports(r.getToPorts());
        nodes(
                namespace,
                r.getFromEndpoints(),
                r.getFromEntities(),
                null,
                r.getFromCIDR(),
                r.getFromCIDRSet(),
                peers)
            .forEach(n -> out.add(new AllowedPeer(n, ports)));
      }
    } else if (direction == Direction.Egress && c.getEgress() != null) {
      for (CiliumPolicy.EgressRule r : c.getEgress()) {
        List<PortCount> ports = ports(r.getToPorts());
        nodes(
                namespace,
                r.getToEndpoints(),
                r.getToEntities(),
                r.getToFQDNs(),
                r.getToCIDR(),
                r.getToCIDRSet(),
                peers)
            .forEach(n -> out.add(new AllowedPeer(n, ports)));
      }
    }
    return out;
  }

  /**
   * The nodes of a Cilium rule's peers: endpoints resolved like a NetworkPolicy peer of their
   * namespace ({@code k8s:io.kubernetes.pod.namespace}, else the policy's), names and CIDRs as
   * outside nodes; entity {@code world} is the node of everything outside the cluster (the one the
   * widened rule learns), another entity a node of its own name. A rule without peers selects
   * nothing, so it has none.
   */
  private static List<Workload> nodes(
      String namespace,
      List<LabelSelector> endpoints,
      List<String> entities,
      List<CiliumPolicy.FqdnSelector> names,
      List<String> cidrs,
      List<CiliumPolicy.CidrRule> cidrSets,
      PeerResolver peers) {
    List<Workload> out = new ArrayList<>();
    if (endpoints != null) {
      for (LabelSelector e : endpoints) {
        out.add(endpointNode(namespace, e, peers));
      }
    }
    if (entities != null) {
      for (String entity : entities) {
        out.add(
            ReportModel.peerWorkload(
                entity.startsWith("world") ? "outside-cluster" : "entity:" + entity));
      }
    }
    if (names != null) {
      for (CiliumPolicy.FqdnSelector f : names) {
        String name = f.getMatchName() != null ? f.getMatchName() : f.getMatchPattern();
        out.add(ReportModel.peerWorkload(ReportModel.NAMES_PREFIX + name));
      }
    }
    if (cidrs != null) {
      cidrs.forEach(c -> out.add(ReportModel.peerWorkload(c)));
    }
    if (cidrSets != null) {
      cidrSets.forEach(c -> out.add(ReportModel.peerWorkload(c.getCidr())));
    }
    return out;
  }

  private static Workload endpointNode(String namespace, LabelSelector e, PeerResolver peers) {
    Map<String, String> labels = new TreeMap<>();
    String ns = namespace;
    if (e.getMatchLabels() != null) {
      for (Map.Entry<String, String> l : e.getMatchLabels().entrySet()) {
        String key = l.getKey().startsWith("k8s:") ? l.getKey().substring(4) : l.getKey();
        if (key.equals("io.kubernetes.pod.namespace")) {
          ns = l.getValue();
        } else {
          labels.put(key, l.getValue());
        }
      }
    }
    return peers.resolve(
        namespace,
        new NetworkPolicyPeerBuilder()
            .withNewNamespaceSelector()
            .withMatchLabels(Map.of(Labels.NAMESPACE_NAME, ns))
            .endNamespaceSelector()
            .withNewPodSelector()
            .withMatchLabels(labels)
            .endPodSelector()
            .build());
  }

  private static List<PortCount> ports(List<CiliumPolicy.PortRule> rules) {
    if (rules == null || rules.isEmpty()) {
      return List.of(new PortCount("any", "*", null));
    }
    List<PortCount> out = new ArrayList<>();
    for (CiliumPolicy.PortRule r : rules) {
      if (r == null || r.getPorts() == null || r.getPorts().isEmpty()) {
        return List.of(new PortCount("any", "*", null));
      }
      r.getPorts()
          .forEach(
              p ->
                  out.add(
                      new PortCount(
                          p.getProtocol() == null ? "any" : p.getProtocol(),
                          p.portOrRange(),
                          null)));
    }
    return out;
  }
}
