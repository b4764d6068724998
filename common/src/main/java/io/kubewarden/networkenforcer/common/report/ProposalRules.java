package io.kubewarden.networkenforcer.common.report;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** One readable line per rule of a proposal, for the summary: who, and on which ports. */
public final class ProposalRules {
  private ProposalRules() {}

  public static List<String> describe(ProposalSnapshot proposal) {
    PolicySpec spec = proposal.spec();
    List<String> lines = new ArrayList<>();
    String target =
        spec.getTargetRef().getKind()
            + " "
            + proposal.namespace()
            + "/"
            + spec.getTargetRef().getName();
    if (spec.getKubernetes() != null) {
      var k = spec.getKubernetes();
      if (spec.getDirection() == Direction.Ingress && k.getIngress() != null) {
        for (int i = 0; i < k.getIngress().size(); i++) {
          var r = k.getIngress().get(i);
          lines.add(
              target
                  + " <- "
                  + peers(r.getFrom())
                  + " on "
                  + ports(r.getPorts())
                  + names(proposal, i));
        }
      } else if (k.getEgress() != null) {
        for (int i = 0; i < k.getEgress().size(); i++) {
          var r = k.getEgress().get(i);
          lines.add(
              target
                  + " -> "
                  + peers(r.getTo())
                  + " on "
                  + ports(r.getPorts())
                  + names(proposal, i));
        }
      }
    } else if (spec.getCilium() != null) {
      lines.addAll(CiliumRules.describe(target, spec.getCilium()));
    } else if (spec.getIstio() != null && spec.getIstio().getRules() != null) {
      spec.getIstio()
          .getRules()
          .forEach(
              r ->
                  lines.add(
                      target
                          + " <- "
                          + r.getFrom().stream()
                              .flatMap(f -> f.getSource().getPrincipals().stream())
                              .collect(Collectors.joining(", "))
                          + " on TCP "
                          + r.getTo().stream()
                              .flatMap(t -> t.getOperation().getPorts().stream())
                              .collect(Collectors.joining(","))));
    }
    return lines;
  }

  private static String peers(List<NetworkPolicyPeer> peers) {
    if (peers == null) {
      return "anyone";
    }
    return peers.stream()
        .map(
            p -> {
              if (p.getIpBlock() != null) {
                List<String> except = p.getIpBlock().getExcept();
                return "addresses "
                    + p.getIpBlock().getCidr()
                    + (except == null || except.isEmpty()
                        ? ""
                        : " except " + String.join(",", except));
              }
              String ns =
                  p.getNamespaceSelector() == null
                          || p.getNamespaceSelector().getMatchLabels() == null
                      ? "*"
                      : p.getNamespaceSelector()
                          .getMatchLabels()
                          .getOrDefault("kubernetes.io/metadata.name", "*");
              return "pods " + labels(p.getPodSelector()) + " in " + ns;
            })
        .collect(Collectors.joining(" | "));
  }

  /**
   * The DNS names the data plane reported for an outside peer, as the evidence of rule {@code
   * index} has them.
   */
  private static String names(ProposalSnapshot proposal, int index) {
    return proposal.evidence().stream()
        .filter(e -> e.getRule() == index && e.getDnsNames() != null && !e.getDnsNames().isEmpty())
        .findFirst()
        .map(e -> " (" + String.join(", ", e.getDnsNames()) + ")")
        .orElse("");
  }

  private static String labels(LabelSelector s) {
    Map<String, String> m =
        s == null || s.getMatchLabels() == null ? Map.of() : new TreeMap<>(s.getMatchLabels());
    return m.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(",", "{", "}"));
  }

  private static String ports(List<NetworkPolicyPort> ports) {
    if (ports == null || ports.isEmpty()) {
      return "any port";
    }
    return ports.stream()
        .map(
            p ->
                p.getProtocol()
                    + " "
                    + (p.getPort() == null
                        ? "*"
                        : p.getPort().getIntVal() != null
                            ? p.getPort().getIntVal().toString()
                            : p.getPort().getStrVal()))
        .collect(Collectors.joining(", "));
  }
}
