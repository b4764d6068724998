package io.kubewarden.networkenforcer.common.crd;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Evidence for one rule of a proposal: {@code rule} is its index in the rules list; {@code peer}
 * names the peer ({@code ns/Kind/name} of the peer workload, or the Istio principal).
 */
public class RuleEvidence {
  private int rule;
  private String peer;
  private List<PortEvidence> ports = new ArrayList<>();

  public RuleEvidence() {}

  public RuleEvidence(int rule, String peer, List<PortEvidence> ports) {
    this.rule = rule;
    this.peer = peer;
    this.ports = ports;
  }

  public int getRule() { return rule; }
  public void setRule(int rule) { this.rule = rule; }
  public String getPeer() { return peer; }
  public void setPeer(String peer) { this.peer = peer; }
  public List<PortEvidence> getPorts() { return ports; }
  public void setPorts(List<PortEvidence> ports) { this.ports = ports; }

  @Override
  public boolean equals(Object o) {
    return o instanceof RuleEvidence r && rule == r.rule && Objects.equals(peer, r.peer) && Objects.equals(ports, r.ports);
  }

  @Override
  public int hashCode() { return Objects.hash(rule, peer, ports); }
}
