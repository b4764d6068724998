package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Evidence for one rule of a proposal: {@code rule} is its index in the rules list; {@code peer}
 * names the peer ({@code ns/Kind/name} of the peer workload, the Istio principal, the address block
 * of a peer outside the cluster, {@code outside-cluster} for the widened rule, or {@code
 * ns/Labels/k=v,...} for a peer known only by its labels). The rule's observation span and count
 * summarise its ports.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public class RuleEvidence {
  private int rule;
  private String peer;
  private List<PortEvidence> ports = new ArrayList<>();

  @JsonPropertyDescription(
      "Peer outside the cluster: the DNS names the data plane reported for its addresses.")
  private List<String> dnsNames;

  @JsonPropertyDescription(
      "labels: the peer is known only by its namespace and pod labels (no workload could be"
          + " inferred); absent for a workload, principal or address.")
  private String peerKnownBy;

  @JsonPropertyDescription("RFC 3339: the earliest first-seen of the rule's ports.")
  private String firstSeen;

  @JsonPropertyDescription("RFC 3339: the latest last-seen of the rule's ports.")
  private String lastSeen;

  @JsonPropertyDescription("Observations of the rule, all ports together.")
  private long count;

  public RuleEvidence() {}

  public RuleEvidence(int rule, String peer, List<PortEvidence> ports) {
    this.rule = rule;
    this.peer = peer;
    this.ports = ports;
  }

  public int getRule() {
    return rule;
  }

  public void setRule(int rule) {
    this.rule = rule;
  }

  public String getPeer() {
    return peer;
  }

  public void setPeer(String peer) {
    this.peer = peer;
  }

  public List<PortEvidence> getPorts() {
    return ports;
  }

  public void setPorts(List<PortEvidence> ports) {
    this.ports = ports;
  }

  public List<String> getDnsNames() {
    return dnsNames;
  }

  public void setDnsNames(List<String> dnsNames) {
    this.dnsNames = dnsNames;
  }

  public String getPeerKnownBy() {
    return peerKnownBy;
  }

  public void setPeerKnownBy(String peerKnownBy) {
    this.peerKnownBy = peerKnownBy;
  }

  public String getFirstSeen() {
    return firstSeen;
  }

  public void setFirstSeen(String firstSeen) {
    this.firstSeen = firstSeen;
  }

  public String getLastSeen() {
    return lastSeen;
  }

  public void setLastSeen(String lastSeen) {
    this.lastSeen = lastSeen;
  }

  public long getCount() {
    return count;
  }

  public void setCount(long count) {
    this.count = count;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RuleEvidence r
        && rule == r.rule
        && count == r.count
        && Objects.equals(peer, r.peer)
        && Objects.equals(peerKnownBy, r.peerKnownBy)
        && Objects.equals(ports, r.ports)
        && Objects.equals(emptyIsNull(dnsNames), emptyIsNull(r.dnsNames))
        && Objects.equals(firstSeen, r.firstSeen)
        && Objects.equals(lastSeen, r.lastSeen);
  }

  private static List<String> emptyIsNull(List<String> l) {
    return l == null || l.isEmpty() ? null : l;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        rule, peer, peerKnownBy, ports, emptyIsNull(dnsNames), firstSeen, lastSeen, count);
  }
}
