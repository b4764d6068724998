package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;
import java.util.Objects;

/**
 * The reduced CiliumNetworkPolicy (cilium.io/v2) model of {@code spec.cilium}: an endpoint selector
 * and allow rules of endpoints, CIDRs and (egress) DNS names on L4 ports, plus the DNS proxy rule
 * that {@code toFQDNs} needs. Field names are Cilium's, so the payload is the CNP's {@code spec} as
 * it is. Entities ({@code to/fromEntities}) are kept as Cilium names them, and so are port ranges
 * ({@code endPort}) and L7 rules of DNS and HTTP. No deny rules or node selectors.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"endpointSelector", "ingress", "egress"})
public class CiliumPolicy {
  @Required
  @JsonPropertyDescription(
      "Selects the pods the rules apply to (the workload's selector), in the policy's namespace.")
  private LabelSelector endpointSelector;

  @JsonPropertyDescription("Ingress allow rules: a connection matching any rule is allowed.")
  private List<IngressRule> ingress;

  @JsonPropertyDescription("Egress allow rules: a connection matching any rule is allowed.")
  private List<EgressRule> egress;

  public CiliumPolicy() {}

  public CiliumPolicy(
      LabelSelector endpointSelector, List<IngressRule> ingress, List<EgressRule> egress) {
    this.endpointSelector = endpointSelector;
    this.ingress = ingress;
    this.egress = egress;
  }

  public LabelSelector getEndpointSelector() {
    return endpointSelector;
  }

  public void setEndpointSelector(LabelSelector endpointSelector) {
    this.endpointSelector = endpointSelector;
  }

  public List<IngressRule> getIngress() {
    return ingress;
  }

  public void setIngress(List<IngressRule> ingress) {
    this.ingress = ingress;
  }

  public List<EgressRule> getEgress() {
    return egress;
  }

  public void setEgress(List<EgressRule> egress) {
    this.egress = egress;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CiliumPolicy p
        && Objects.equals(endpointSelector, p.endpointSelector)
        && Objects.equals(ingress, p.ingress)
        && Objects.equals(egress, p.egress);
  }

  @Override
  public int hashCode() {
    return Objects.hash(endpointSelector, ingress, egress);
  }

  private static final String ENTITIES =
      "Cilium's entities: world (everything outside the cluster), cluster (every endpoint of the"
          + " cluster), all, cluster-mesh, host, remote-node, kube-apiserver, health, init, ingress,"
          + " unmanaged, none.";

  /** One ingress rule: any of these sources, on any of these ports (none: every port). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"fromEndpoints", "fromEntities", "fromCIDR", "fromCIDRSet", "toPorts"})
  public static class IngressRule {
    @JsonProperty("fromEndpoints")
    @JsonPropertyDescription(
        "Source pods by labels; k8s:io.kubernetes.pod.namespace names their namespace (absent: the"
            + " policy's namespace).")
    private List<LabelSelector> fromEndpoints;

    @JsonProperty("fromEntities")
    @JsonPropertyDescription(ENTITIES)
    private List<String> fromEntities;

    @JsonProperty("fromCIDR")
    @JsonPropertyDescription("Source addresses outside the cluster, as CIDRs.")
    private List<String> fromCIDR;

    @JsonProperty("fromCIDRSet")
    @JsonPropertyDescription("Source address ranges outside the cluster, with exceptions.")
    private List<CidrRule> fromCIDRSet;

    @JsonProperty("toPorts")
    @JsonPropertyDescription("Destination ports; absent: every port.")
    private List<PortRule> toPorts;

    public IngressRule() {}

    public IngressRule(
        List<LabelSelector> fromEndpoints,
        List<String> fromCIDR,
        List<CidrRule> fromCIDRSet,
        List<PortRule> toPorts) {
      this.fromEndpoints = fromEndpoints;
      this.fromCIDR = fromCIDR;
      this.fromCIDRSet = fromCIDRSet;
      this.toPorts = toPorts;
    }

    @JsonProperty("fromEndpoints")
    public List<LabelSelector> getFromEndpoints() {
      return fromEndpoints;
    }

    public void setFromEndpoints(List<LabelSelector> fromEndpoints) {
      this.fromEndpoints = fromEndpoints;
    }

    @JsonProperty("fromEntities")
    public List<String> getFromEntities() {
      return fromEntities;
    }

    public void setFromEntities(List<String> fromEntities) {
      this.fromEntities = fromEntities;
    }

    @JsonProperty("fromCIDR")
    public List<String> getFromCIDR() {
      return fromCIDR;
    }

    public void setFromCIDR(List<String> fromCIDR) {
      this.fromCIDR = fromCIDR;
    }

    @JsonProperty("fromCIDRSet")
    public List<CidrRule> getFromCIDRSet() {
      return fromCIDRSet;
    }

    public void setFromCIDRSet(List<CidrRule> fromCIDRSet) {
      this.fromCIDRSet = fromCIDRSet;
    }

    @JsonProperty("toPorts")
    public List<PortRule> getToPorts() {
      return toPorts;
    }

    public void setToPorts(List<PortRule> toPorts) {
      this.toPorts = toPorts;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof IngressRule r
          && Objects.equals(fromEndpoints, r.fromEndpoints)
          && Objects.equals(fromEntities, r.fromEntities)
          && Objects.equals(fromCIDR, r.fromCIDR)
          && Objects.equals(fromCIDRSet, r.fromCIDRSet)
          && Objects.equals(toPorts, r.toPorts);
    }

    @Override
    public int hashCode() {
      return Objects.hash(fromEndpoints, fromEntities, fromCIDR, fromCIDRSet, toPorts);
    }
  }

  /** One egress rule: any of these destinations, on any of these ports (none: every port). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"toEndpoints", "toEntities", "toFQDNs", "toCIDR", "toCIDRSet", "toPorts"})
  public static class EgressRule {
    @JsonProperty("toEndpoints")
    @JsonPropertyDescription(
        "Destination pods by labels; k8s:io.kubernetes.pod.namespace names their namespace"
            + " (absent: the policy's namespace).")
    private List<LabelSelector> toEndpoints;

    @JsonProperty("toEntities")
    @JsonPropertyDescription(ENTITIES)
    private List<String> toEntities;

    @JsonProperty("toFQDNs")
    @JsonPropertyDescription(
        "Destinations outside the cluster by DNS name (matchName, or matchPattern with *); needs a"
            + " rule allowing DNS to the cluster DNS with rules.dns.")
    private List<FqdnSelector> toFQDNs;

    @JsonProperty("toCIDR")
    @JsonPropertyDescription("Destination addresses outside the cluster, as CIDRs.")
    private List<String> toCIDR;

    @JsonProperty("toCIDRSet")
    @JsonPropertyDescription("Destination address ranges outside the cluster, with exceptions.")
    private List<CidrRule> toCIDRSet;

    @JsonProperty("toPorts")
    @JsonPropertyDescription(
        "Destination ports, with DNS rules for the DNS proxy; absent: every port.")
    private List<PortRule> toPorts;

    public EgressRule() {}

    public EgressRule(
        List<LabelSelector> toEndpoints,
        List<FqdnSelector> toFQDNs,
        List<String> toCIDR,
        List<CidrRule> toCIDRSet,
        List<PortRule> toPorts) {
      this.toEndpoints = toEndpoints;
      this.toFQDNs = toFQDNs;
      this.toCIDR = toCIDR;
      this.toCIDRSet = toCIDRSet;
      this.toPorts = toPorts;
    }

    @JsonProperty("toEndpoints")
    public List<LabelSelector> getToEndpoints() {
      return toEndpoints;
    }

    public void setToEndpoints(List<LabelSelector> toEndpoints) {
      this.toEndpoints = toEndpoints;
    }

    @JsonProperty("toEntities")
    public List<String> getToEntities() {
      return toEntities;
    }

    public void setToEntities(List<String> toEntities) {
      this.toEntities = toEntities;
    }

    @JsonProperty("toFQDNs")
    public List<FqdnSelector> getToFQDNs() {
      return toFQDNs;
    }

    public void setToFQDNs(List<FqdnSelector> toFQDNs) {
      this.toFQDNs = toFQDNs;
    }

    @JsonProperty("toCIDR")
    public List<String> getToCIDR() {
      return toCIDR;
    }

    public void setToCIDR(List<String> toCIDR) {
      this.toCIDR = toCIDR;
    }

    @JsonProperty("toCIDRSet")
    public List<CidrRule> getToCIDRSet() {
      return toCIDRSet;
    }

    public void setToCIDRSet(List<CidrRule> toCIDRSet) {
      this.toCIDRSet = toCIDRSet;
    }

    @JsonProperty("toPorts")
    public List<PortRule> getToPorts() {
      return toPorts;
    }

    public void setToPorts(List<PortRule> toPorts) {
      this.toPorts = toPorts;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof EgressRule r
          && Objects.equals(toEndpoints, r.toEndpoints)
          && Objects.equals(toEntities, r.toEntities)
          && Objects.equals(toFQDNs, r.toFQDNs)
          && Objects.equals(toCIDR, r.toCIDR)
          && Objects.equals(toCIDRSet, r.toCIDRSet)
          && Objects.equals(toPorts, r.toPorts);
    }

    @Override
    public int hashCode() {
      return Objects.hash(toEndpoints, toEntities, toFQDNs, toCIDR, toCIDRSet, toPorts);
    }
  }

  /** {@code toCIDRSet[]} / {@code fromCIDRSet[]}: a CIDR minus the ranges in {@code except}. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public static class CidrRule {
    @Required private String cidr;
    private List<String> except;

    public CidrRule() {}

    public CidrRule(String cidr, List<String> except) {
      this.cidr = cidr;
      this.except = except;
    }

    public String getCidr() {
      return cidr;
    }

    public void setCidr(String cidr) {
      this.cidr = cidr;
    }

    public List<String> getExcept() {
      return except;
    }

    public void setExcept(List<String> except) {
      this.except = except;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof CidrRule r
          && Objects.equals(cidr, r.cidr)
          && Objects.equals(
              except == null ? List.of() : except, r.except == null ? List.of() : r.except);
    }

    @Override
    public int hashCode() {
      return Objects.hash(cidr, except == null ? List.of() : except);
    }
  }

  /**
   * A DNS name selector ({@code toFQDNs[]}, {@code rules.dns[]}): exactly one of {@code matchName}
   * (the literal name) and {@code matchPattern} ({@code *} wildcards, see {@code FqdnMatcher}).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class FqdnSelector {
    private String matchName;
    private String matchPattern;

    public FqdnSelector() {}

    public FqdnSelector(String matchName, String matchPattern) {
      this.matchName = matchName;
      this.matchPattern = matchPattern;
    }

    public static FqdnSelector name(String name) {
      return new FqdnSelector(name, null);
    }

    public static FqdnSelector pattern(String pattern) {
      return new FqdnSelector(null, pattern);
    }

    public String getMatchName() {
      return matchName;
    }

    public void setMatchName(String matchName) {
      this.matchName = matchName;
    }

    public String getMatchPattern() {
      return matchPattern;
    }

    public void setMatchPattern(String matchPattern) {
      this.matchPattern = matchPattern;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof FqdnSelector s
          && Objects.equals(matchName, s.matchName)
          && Objects.equals(matchPattern, s.matchPattern);
    }

    @Override
    public int hashCode() {
      return Objects.hash(matchName, matchPattern);
    }
  }

  /** {@code toPorts[]}: L4 ports, and the DNS names the DNS proxy resolves or the HTTP requests. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class PortRule {
    private List<PortProtocol> ports;

    @JsonPropertyDescription(
        "L7 rules: dns (the names the DNS proxy lets through) or http (the requests the L7 proxy"
            + " lets through).")
    private L7Rules rules;

    public PortRule() {}

    public PortRule(List<PortProtocol> ports, L7Rules rules) {
      this.ports = ports;
      this.rules = rules;
    }

    public List<PortProtocol> getPorts() {
      return ports;
    }

    public void setPorts(List<PortProtocol> ports) {
      this.ports = ports;
    }

    public L7Rules getRules() {
      return rules;
    }

    public void setRules(L7Rules rules) {
      this.rules = rules;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof PortRule r
          && Objects.equals(ports, r.ports)
          && Objects.equals(rules, r.rules);
    }

    @Override
    public int hashCode() {
      return Objects.hash(ports, rules);
    }
  }

  /**
   * {@code toPorts[].ports[]}: a port number as a string, the last port of a range starting there
   * ({@code endPort}, as Cilium's own field; a reviewer widening a port writes it), and its
   * protocol (absent: ANY).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"port", "endPort", "protocol"})
  public static class PortProtocol {
    @Required
    @JsonPropertyDescription("A port number, 1-65535, as a string.")
    private String port;

    @Min(0)
    @Max(65535)
    @JsonPropertyDescription(
        "The last port of the range port..endPort, both included; a value not above port (or"
            + " port 0 or a named port) leaves the single port.")
    private Integer endPort;

    @JsonPropertyDescription("TCP, UDP, SCTP or ANY (absent: ANY).")
    private String protocol;

    public PortProtocol() {}

    public PortProtocol(String port, String protocol) {
      this(port, null, protocol);
    }

    public PortProtocol(String port, Integer endPort, String protocol) {
      this.port = port;
      this.endPort = endPort;
      this.protocol = protocol;
    }

    public Integer getEndPort() {
      return endPort;
    }

    public void setEndPort(Integer endPort) {
      this.endPort = endPort;
    }

    /**
     * The last port of this entry when it starts at {@code first} (its port as a number): the
     * endPort when above it, else {@code first} (Cilium ignores an endPort not above the port).
     */
    public int lastPort(int first) {
      return endPort != null && endPort > first ? endPort : first;
    }

    /** The port as people read it: {@code 8080}, or {@code 8080-8089} for a range. */
    public String portOrRange() {
      try {
        int first = Integer.parseInt(port);
        return first > 0 && lastPort(first) > first ? port + "-" + endPort : port;
      } catch (NumberFormatException named) {
        return port; // a named port (or none) takes no range
      }
    }

    public String getPort() {
      return port;
    }

    public void setPort(String port) {
      this.port = port;
    }

    public String getProtocol() {
      return protocol;
    }

    public void setProtocol(String protocol) {
      this.protocol = protocol;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof PortProtocol p
          && Objects.equals(port, p.port)
          && Objects.equals(endPort, p.endPort)
          && Objects.equals(protocol, p.protocol);
    }

    @Override
    public int hashCode() {
      return Objects.hash(port, endPort, protocol);
    }
  }

  /**
   * {@code toPorts[].rules}: the DNS names the DNS proxy lets the pod resolve, or the HTTP requests
   * the L7 proxy lets through to the port.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class L7Rules {
    private List<FqdnSelector> dns;

    @JsonPropertyDescription(
        "HTTP requests allowed on these ports (through Cilium's L7 proxy); any other request is"
            + " refused.")
    private List<HttpRule> http;

    public L7Rules() {}

    public L7Rules(List<FqdnSelector> dns) {
      this.dns = dns;
    }

    public static L7Rules http(List<HttpRule> http) {
      L7Rules rules = new L7Rules();
      rules.http = http;
      return rules;
    }

    public List<HttpRule> getHttp() {
      return http;
    }

    public void setHttp(List<HttpRule> http) {
      this.http = http;
    }

    public List<FqdnSelector> getDns() {
      return dns;
    }

    public void setDns(List<FqdnSelector> dns) {
      this.dns = dns;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof L7Rules r && Objects.equals(dns, r.dns) && Objects.equals(http, r.http);
    }

    @Override
    public int hashCode() {
      return Objects.hash(dns, http);
    }
  }

  /**
   * {@code rules.http[]}: a request Cilium's L7 proxy allows. Both fields are regular expressions
   * Cilium matches against the whole method and path; an absent one matches anything.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"method", "path"})
  public static class HttpRule {
    @JsonPropertyDescription("The request method, a regular expression (GET).")
    private String method;

    @JsonPropertyDescription("The URL path, a regular expression matched in full (^/orders$).")
    private String path;

    public HttpRule() {}

    public HttpRule(String method, String path) {
      this.method = method;
      this.path = path;
    }

    public String getMethod() {
      return method;
    }

    public void setMethod(String method) {
      this.method = method;
    }

    public String getPath() {
      return path;
    }

    public void setPath(String path) {
      this.path = path;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof HttpRule r
          && Objects.equals(method, r.method)
          && Objects.equals(path, r.path);
    }

    @Override
    public int hashCode() {
      return Objects.hash(method, path);
    }

    @Override
    public String toString() {
      return method + " " + path;
    }
  }
}
