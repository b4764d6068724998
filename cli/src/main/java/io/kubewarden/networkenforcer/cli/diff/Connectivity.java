package io.kubewarden.networkenforcer.cli.diff;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.networking.v1.IPBlock;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a spec allows, as (peer, port) pairs with a canonical text for each side, so two specs
 * compare by what they let through rather than by how their YAML is laid out: rules split or merged
 * differently, reordered ports or labels give the same pairs.
 *
 * @param pods the pods the spec applies to (its own selector)
 * @param grants every allowed (peer, port)
 */
record Connectivity(String pods, SortedSet<Grant> grants) {

  /**
   * One allowed peer on one port; {@code any peer}/{@code any port} where the rule does not
   * constrain.
   */
  record Grant(String peer, String port) implements Comparable<Grant> {
    @Override
    public int compareTo(Grant o) {
      int c = peer.compareTo(o.peer);
      return c != 0 ? c : port.compareTo(o.port);
    }
  }

  static final String ANY_PEER = "any peer";
  static final String ANY_PORT = "any port";

  static Connectivity of(PolicySpec spec) {
    SortedSet<Grant> grants = new TreeSet<>();
    if (spec.getKubernetes() != null) {
      var k = spec.getKubernetes();
      boolean ingress = spec.getDirection() == Direction.Ingress;
      if (ingress && k.getIngress() != null) {
        k.getIngress().forEach(r -> add(grants, peers(r.getFrom()), ports(r.getPorts())));
      } else if (!ingress && k.getEgress() != null) {
        k.getEgress().forEach(r -> add(grants, peers(r.getTo()), ports(r.getPorts())));
      }
      return new Connectivity(selector(k.getPodSelector()), grants);
    }
    if (spec.getCilium() != null) {
      return cilium(spec.getCilium(), grants);
    }
    IstioPolicy istio = spec.getIstio();
    if (istio != null && istio.getRules() != null) {
      for (IstioPolicy.Rule rule : istio.getRules()) {
        List<String> principals = new ArrayList<>();
        if (rule.getFrom() != null) {
          rule.getFrom()
              .forEach(
                  f -> {
                    if (f.getSource() == null
                        || f.getSource().getPrincipals() == null
                        || f.getSource().getPrincipals().isEmpty()) {
                      principals.add(ANY_PEER);
                    } else {
                      f.getSource().getPrincipals().forEach(p -> principals.add("principal " + p));
                    }
                  });
        }
        List<String> ports = new ArrayList<>();
        if (rule.getTo() != null) {
          rule.getTo()
              .forEach(
                  t -> {
                    if (t.getOperation() == null
                        || t.getOperation().getPorts() == null
                        || t.getOperation().getPorts().isEmpty()) {
                      ports.add(ANY_PORT);
                    } else {
                      t.getOperation().getPorts().forEach(p -> ports.add("TCP/" + p));
                    }
                  });
        }
        add(
            grants,
            principals.isEmpty() ? List.of(ANY_PEER) : principals,
            ports.isEmpty() ? List.of(ANY_PORT) : ports);
      }
    }
    return new Connectivity(istio == null ? "" : selector(istio.getSelector()), grants);
  }

  /**
   * CiliumNetworkPolicy rules: {@code pods {..} in NS}, {@code entity world}, {@code name
   * api.example.com}, {@code pattern *.example.com}, {@code CIDR 10.0.0.0/8}; the DNS proxy rule is
   * a grant like any other.
   */
  private static Connectivity cilium(CiliumPolicy c, SortedSet<Grant> grants) {
    if (c.getIngress() != null) {
      for (CiliumPolicy.IngressRule r : c.getIngress()) {
        List<String> peers = new ArrayList<>();
        endpoints(r.getFromEndpoints(), peers);
        entities(r.getFromEntities(), peers);
        cidrs(r.getFromCIDR(), r.getFromCIDRSet(), peers);
        add(grants, peers.isEmpty() ? List.of("nothing") : peers, ciliumPorts(r.getToPorts()));
      }
    }
    if (c.getEgress() != null) {
      for (CiliumPolicy.EgressRule r : c.getEgress()) {
        List<String> peers = new ArrayList<>();
        endpoints(r.getToEndpoints(), peers);
        entities(r.getToEntities(), peers);
        if (r.getToFQDNs() != null) {
          for (CiliumPolicy.FqdnSelector f : r.getToFQDNs()) {
            peers.add(
                f.getMatchName() != null
                    ? "name " + f.getMatchName()
                    : "pattern " + f.getMatchPattern());
          }
        }
        cidrs(r.getToCIDR(), r.getToCIDRSet(), peers);
        add(grants, peers.isEmpty() ? List.of("nothing") : peers, ciliumPorts(r.getToPorts()));
      }
    }
    return new Connectivity(selector(c.getEndpointSelector()), grants);
  }

  private static void endpoints(List<LabelSelector> selectors, List<String> out) {
    if (selectors != null) {
      selectors.forEach(s -> out.add("pods " + selector(s)));
    }
  }

  private static void entities(List<String> entities, List<String> out) {
    if (entities != null) {
      entities.forEach(e -> out.add("entity " + e));
    }
  }

  private static void cidrs(
      List<String> cidrs, List<CiliumPolicy.CidrRule> sets, List<String> out) {
    if (cidrs != null) {
      cidrs.forEach(c -> out.add("CIDR " + c));
    }
    if (sets != null) {
      for (CiliumPolicy.CidrRule set : sets) {
        String except =
            set.getExcept() == null || set.getExcept().isEmpty()
                ? ""
                : " except " + String.join(",", new TreeSet<>(set.getExcept()));
        out.add("CIDR " + set.getCidr() + except);
      }
    }
  }

  private static List<String> ciliumPorts(List<CiliumPolicy.PortRule> rules) {
    if (rules == null || rules.isEmpty()) {
      return List.of(ANY_PORT);
    }
    List<String> out = new ArrayList<>();
    for (CiliumPolicy.PortRule r : rules) {
      if (r == null || r.getPorts() == null || r.getPorts().isEmpty()) {
        return List.of(ANY_PORT);
      }
      boolean dns = r.getRules() != null && r.getRules().getDns() != null;
      String http = http(r.getRules());
      for (CiliumPolicy.PortProtocol p : r.getPorts()) {
        out.add(
            (p.getProtocol() == null ? "ANY" : p.getProtocol())
                + "/"
                + p.getPort()
                + (dns ? " (DNS proxy)" : "")
                + http);
      }
    }
    return out;
  }

  /**
   * A port entry's HTTP rules, sorted so that the order a reviewer wrote them in is no difference:
   * {@code " (HTTP GET ^/a$ | POST ^/a$)"}, an absent field as {@code *}; empty without rules.
   */
  private static String http(CiliumPolicy.L7Rules rules) {
    if (rules == null || rules.getHttp() == null) {
      return "";
    }
    SortedSet<String> requests = new TreeSet<>();
    for (CiliumPolicy.HttpRule h : rules.getHttp()) {
      requests.add(
          (h == null || h.getMethod() == null ? "*" : h.getMethod())
              + " "
              + (h == null || h.getPath() == null ? "*" : h.getPath()));
    }
    return " (HTTP " + String.join(" | ", requests) + ")";
  }

  private static void add(SortedSet<Grant> grants, List<String> peers, List<String> ports) {
    for (String peer : peers) {
      for (String port : ports) {
        grants.add(new Grant(peer, port));
      }
    }
  }

  private static List<String> peers(List<NetworkPolicyPeer> peers) {
    if (peers == null || peers.isEmpty()) {
      return List.of(ANY_PEER);
    }
    List<String> out = new ArrayList<>();
    for (NetworkPolicyPeer p : peers) {
      if (p != null) {
        out.add(peer(p));
      }
    }
    return out;
  }

  /**
   * For example {@code namespace demo, pods app=web} or {@code ipBlock 10.0.0.0/8 except
   * 10.1.0.0/16}.
   */
  static String peer(NetworkPolicyPeer p) {
    List<String> parts = new ArrayList<>();
    IPBlock block = p.getIpBlock();
    if (block != null) {
      String except =
          block.getExcept() == null || block.getExcept().isEmpty()
              ? ""
              : " except " + String.join(",", new TreeSet<>(block.getExcept()));
      parts.add("ipBlock " + block.getCidr() + except);
    }
    LabelSelector ns = p.getNamespaceSelector();
    if (ns != null) {
      Map<String, String> labels = ns.getMatchLabels();
      boolean byName =
          labels != null
              && labels.size() == 1
              && labels.containsKey("kubernetes.io/metadata.name")
              && (ns.getMatchExpressions() == null || ns.getMatchExpressions().isEmpty());
      parts.add(
          byName
              ? "namespace " + labels.get("kubernetes.io/metadata.name")
              : "namespaces " + selector(ns));
    } else if (p.getPodSelector() != null) {
      parts.add("own namespace");
    }
    if (p.getPodSelector() != null) {
      parts.add("pods " + selector(p.getPodSelector()));
    }
    return parts.isEmpty() ? "nothing" : String.join(", ", parts);
  }

  private static List<String> ports(List<NetworkPolicyPort> ports) {
    if (ports == null || ports.isEmpty()) {
      return List.of(ANY_PORT);
    }
    List<String> out = new ArrayList<>();
    for (NetworkPolicyPort p : ports) {
      if (p == null) {
        continue;
      }
      String protocol = p.getProtocol() == null ? "TCP" : p.getProtocol();
      IntOrString port = p.getPort();
      if (port == null) {
        out.add(protocol + "/any");
      } else {
        String value = port.getIntVal() != null ? port.getIntVal().toString() : port.getStrVal();
        out.add(protocol + "/" + value + (p.getEndPort() != null ? "-" + p.getEndPort() : ""));
      }
    }
    return out;
  }

  /** Sorted {@code k=v} and {@code k In (a,b)} terms; {@code all} for an empty selector. */
  static String selector(LabelSelector s) {
    if (s == null) {
      return "all";
    }
    List<String> terms = new ArrayList<>();
    if (s.getMatchLabels() != null) {
      new TreeMap<>(s.getMatchLabels()).forEach((k, v) -> terms.add(k + "=" + v));
    }
    if (s.getMatchExpressions() != null) {
      List<String> expressions = new ArrayList<>();
      for (LabelSelectorRequirement r : s.getMatchExpressions()) {
        String values =
            r.getValues() == null || r.getValues().isEmpty()
                ? ""
                : " (" + String.join(",", new TreeSet<>(r.getValues())) + ")";
        expressions.add(r.getKey() + " " + r.getOperator() + values);
      }
      expressions.sort(null);
      terms.addAll(expressions);
    }
    return terms.isEmpty() ? "all" : "{" + String.join(", ", terms) + "}";
  }
}
