package io.kubewarden.networkenforcer.common.report;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.CidrRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.FqdnSelector;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.PortRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The summary lines of a CiliumNetworkPolicy payload: who, by name or address, on which ports. */
final class CiliumRules {
  private CiliumRules() {}

  static List<String> describe(String target, CiliumPolicy policy) {
    List<String> lines = new ArrayList<>();
    if (policy.getIngress() != null) {
      for (CiliumPolicy.IngressRule r : policy.getIngress()) {
        List<String> peers = new ArrayList<>();
        endpoints(r.getFromEndpoints(), peers);
        entities(r.getFromEntities(), peers);
        cidrs(r.getFromCIDR(), r.getFromCIDRSet(), peers);
        lines.add(target + " <- " + join(peers) + " on " + ports(r.getToPorts()));
      }
    }
    if (policy.getEgress() != null) {
      for (CiliumPolicy.EgressRule r : policy.getEgress()) {
        List<String> peers = new ArrayList<>();
        endpoints(r.getToEndpoints(), peers);
        entities(r.getToEntities(), peers);
        if (r.getToFQDNs() != null) {
          for (FqdnSelector f : r.getToFQDNs()) {
            peers.add(
                "name " + (f.getMatchName() != null ? f.getMatchName() : f.getMatchPattern()));
          }
        }
        cidrs(r.getToCIDR(), r.getToCIDRSet(), peers);
        lines.add(target + " -> " + join(peers) + " on " + ports(r.getToPorts()));
      }
    }
    return lines;
  }

  private static String join(List<String> peers) {
    return peers.isEmpty() ? "nobody" : String.join(" | ", peers);
  }

  private static void endpoints(List<LabelSelector> selectors, List<String> out) {
    if (selectors == null) {
      return;
    }
    for (LabelSelector s : selectors) {
      Map<String, String> labels =
          s.getMatchLabels() == null ? new TreeMap<>() : new TreeMap<>(s.getMatchLabels());
      String ns = labels.remove("k8s:io.kubernetes.pod.namespace");
      out.add(
          "pods "
              + labels.entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .collect(Collectors.joining(",", "{", "}"))
              + " in "
              + (ns == null ? "the policy's namespace" : ns));
    }
  }

  private static void entities(List<String> entities, List<String> out) {
    if (entities != null) {
      entities.forEach(e -> out.add("entity " + e));
    }
  }

  private static void cidrs(List<String> cidrs, List<CidrRule> sets, List<String> out) {
    if (cidrs != null) {
      cidrs.forEach(c -> out.add("addresses " + c));
    }
    if (sets != null) {
      for (CidrRule c : sets) {
        out.add(
            "addresses "
                + c.getCidr()
                + (c.getExcept() == null || c.getExcept().isEmpty()
                    ? ""
                    : " except " + String.join(",", c.getExcept())));
      }
    }
  }

  private static String ports(List<PortRule> rules) {
    if (rules == null || rules.isEmpty()) {
      return "any port";
    }
    List<String> out = new ArrayList<>();
    for (PortRule r : rules) {
      if (r.getPorts() != null) {
        r.getPorts()
            .forEach(
                p ->
                    out.add(
                        (p.getProtocol() == null ? "ANY" : p.getProtocol())
                            + " "
                            + p.portOrRange()));
      }
      if (r.getRules() != null && r.getRules().getDns() != null) {
        out.add("(DNS proxy)");
      }
      if (r.getRules() != null && r.getRules().getHttp() != null) {
        // Each request the L7 proxy lets through; an absent field matches anything.
        out.add(
            "(HTTP "
                + String.join(
                    " | ",
                    r.getRules().getHttp().stream()
                        .map(
                            h ->
                                (h == null || h.getMethod() == null ? "*" : h.getMethod())
                                    + " "
                                    + (h == null || h.getPath() == null ? "*" : h.getPath()))
                        .toList())
                + ")");
      }
    }
    return String.join(", ", out);
  }
}
