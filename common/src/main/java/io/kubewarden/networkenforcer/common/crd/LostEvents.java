package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/**
 * Events one provider's data plane lost on one node, within the quiet period a proposal waits for.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LostEvents {
  @JsonPropertyDescription("cilium, calico or istio.")
  private String provider;

  @JsonPropertyDescription(
      "The node as the data plane names it (Hubble Relay: <cluster>/<node>); absent when it does not say.")
  private String node;

  @JsonPropertyDescription("The exact number of events the data plane reported lost.")
  private long lostEvents;

  /** RFC 3339. */
  @JsonPropertyDescription("The first loss report (RFC 3339).")
  private String firstLost;

  /** RFC 3339. */
  @JsonPropertyDescription("The last loss report (RFC 3339).")
  private String lastLost;

  @JsonPropertyDescription(
      "True when the data plane could not be read on the node for a time (Hubble Relay: node "
          + "unavailable or in error): flows were missed there, more than lostEvents counts.")
  private Boolean nodeUnavailable;

  public LostEvents() {}

  public LostEvents(
      String provider, String node, long lostEvents, String firstLost, String lastLost) {
    this.provider = provider;
    this.node = node;
    this.lostEvents = lostEvents;
    this.firstLost = firstLost;
    this.lastLost = lastLost;
  }

  public LostEvents(
      String provider,
      String node,
      long lostEvents,
      String firstLost,
      String lastLost,
      boolean nodeUnavailable) {
    this(provider, node, lostEvents, firstLost, lastLost);
    this.nodeUnavailable = nodeUnavailable ? Boolean.TRUE : null;
  }

  public String getProvider() {
    return provider;
  }

  public void setProvider(String provider) {
    this.provider = provider;
  }

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public long getLostEvents() {
    return lostEvents;
  }

  public void setLostEvents(long lostEvents) {
    this.lostEvents = lostEvents;
  }

  public String getFirstLost() {
    return firstLost;
  }

  public void setFirstLost(String firstLost) {
    this.firstLost = firstLost;
  }

  public String getLastLost() {
    return lastLost;
  }

  public void setLastLost(String lastLost) {
    this.lastLost = lastLost;
  }

  public Boolean getNodeUnavailable() {
    return nodeUnavailable;
  }

  public void setNodeUnavailable(Boolean nodeUnavailable) {
    this.nodeUnavailable = nodeUnavailable;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LostEvents l
        && lostEvents == l.lostEvents
        && Objects.equals(provider, l.provider)
        && Objects.equals(node, l.node)
        && Objects.equals(firstLost, l.firstLost)
        && Objects.equals(lastLost, l.lastLost)
        && Objects.equals(nodeUnavailable, l.nodeUnavailable);
  }

  @Override
  public int hashCode() {
    return Objects.hash(provider, node, lostEvents, firstLost, lastLost, nodeUnavailable);
  }

  @Override
  public String toString() {
    return provider
        + (node == null ? "" : " on " + node)
        + ": "
        + lostEvents
        + " lost"
        + (Boolean.TRUE.equals(nodeUnavailable) ? ", node unavailable," : "")
        + " "
        + firstLost
        + ".."
        + lastLost;
  }
}
