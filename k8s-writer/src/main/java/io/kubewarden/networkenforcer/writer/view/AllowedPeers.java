package io.kubewarden.networkenforcer.writer.view;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.common.report.ReportModel.PortCount;
import io.kubewarden.networkenforcer.common.report.ReportModel.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * The peers a policy's rules allow, whichever backend's rules the spec carries: Kubernetes and
 * Istio here, Cilium in {@link CiliumPeers}.
 */
final class AllowedPeers {
  private AllowedPeers() {}

  private static final Workload ANYWHERE =
      new Workload("anywhere", "(anywhere)", "Peer", "anywhere", false);

  static List<AllowedPeer> of(String namespace, PolicySpec spec, PeerResolver peers) {
    if (spec.getKubernetes() != null) {
      return kubernetes(namespace, spec, peers);
    } else if (spec.getCilium() != null) {
      return CiliumPeers.of(namespace, spec.getDirection(), spec.getCilium(), peers);
    } else if (spec.getIstio() != null && spec.getIstio().getRules() != null) {
      return istio(spec);
    }
    return List.of();
  }

  private static List<AllowedPeer> kubernetes(
      String namespace, PolicySpec spec, PeerResolver peers) {
    List<AllowedPeer> out = new ArrayList<>();
    var k = spec.getKubernetes();
    boolean ingress = spec.getDirection() == Direction.Ingress;
    if (ingress && k.getIngress() != null) {
      k.getIngress()
          .forEach(
              r ->
                  peerNodes(namespace, r.getFrom(), peers)
                      .forEach(n -> out.add(new AllowedPeer(n, ports(r.getPorts())))));
    } else if (!ingress && k.getEgress() != null) {
      k.getEgress()
          .forEach(
              r ->
                  peerNodes(namespace, r.getTo(), peers)
                      .forEach(n -> out.add(new AllowedPeer(n, ports(r.getPorts())))));
    }
    return out;
  }

  private static List<AllowedPeer> istio(PolicySpec spec) {
    List<AllowedPeer> out = new ArrayList<>();
    for (var rule : spec.getIstio().getRules()) {
      List<PortCount> ports =
          rule.getTo() == null
              ? List.of(new PortCount("TCP", "*", null))
              : rule.getTo().stream()
                  .filter(t -> t.getOperation() != null && t.getOperation().getPorts() != null)
                  .flatMap(t -> t.getOperation().getPorts().stream())
                  .map(p -> new PortCount("TCP", p, null))
                  .toList();
      if (rule.getFrom() == null) {
        out.add(new AllowedPeer(ANYWHERE, ports));
        continue;
      }
      rule.getFrom().stream()
          .filter(f -> f.getSource() != null && f.getSource().getPrincipals() != null)
          .flatMap(f -> f.getSource().getPrincipals().stream())
          .forEach(
              principal -> out.add(new AllowedPeer(ReportModel.peerWorkload(principal), ports)));
    }
    return out;
  }

  private static List<Workload> peerNodes(
      String namespace, List<NetworkPolicyPeer> from, PeerResolver peers) {
    if (from == null || from.isEmpty()) {
      return List.of(ANYWHERE);
    }
    return from.stream().map(p -> peers.resolve(namespace, p)).toList();
  }

  private static List<PortCount> ports(List<NetworkPolicyPort> ports) {
    if (ports == null || ports.isEmpty()) {
      return List.of(new PortCount("any", "*", null));
    }
    return ports.stream()
        .map(
            p ->
                new PortCount(
                    p.getProtocol() == null ? "TCP" : p.getProtocol(),
                    p.getPort() == null
                        ? "*"
                        : p.getPort().getIntVal() != null
                            ? p.getPort().getIntVal().toString()
                            : p.getPort().getStrVal(),
                    null))
        .toList();
  }
}
