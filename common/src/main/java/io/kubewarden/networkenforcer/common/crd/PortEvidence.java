package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;

/**
 * Evidence for one port of one rule: when it was first and last seen, how often, and from which
 * kinds of record.
 */
public class PortEvidence {
  private String protocol;
  private String port;

  /** RFC 3339. */
  private String firstSeen;

  /** RFC 3339. */
  private String lastSeen;

  private long count;

  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonPropertyDescription(
      "Which kinds of record counted the connections, at most one of each: source-record (the"
          + " source's own record, e.g. its Hubble egress record), destination-record (the"
          + " destination's record, e.g. its Hubble ingress record or ztunnel's inbound log: for an"
          + " egress rule, the source did not report these), l7-request (a request the L7 proxy"
          + " let through). Absent when the data plane did not say.")
  private List<String> seenAs;

  public PortEvidence() {}

  public PortEvidence(String protocol, String port, String firstSeen, String lastSeen, long count) {
    this.protocol = protocol;
    this.port = port;
    this.firstSeen = firstSeen;
    this.lastSeen = lastSeen;
    this.count = count;
  }

  public String getProtocol() {
    return protocol;
  }

  public void setProtocol(String protocol) {
    this.protocol = protocol;
  }

  public String getPort() {
    return port;
  }

  public void setPort(String port) {
    this.port = port;
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

  public List<String> getSeenAs() {
    return seenAs;
  }

  public void setSeenAs(List<String> seenAs) {
    this.seenAs = seenAs;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PortEvidence p
        && count == p.count
        && Objects.equals(emptyIsNull(seenAs), emptyIsNull(p.seenAs))
        && Objects.equals(protocol, p.protocol)
        && Objects.equals(port, p.port)
        && Objects.equals(firstSeen, p.firstSeen)
        && Objects.equals(lastSeen, p.lastSeen);
  }

  @Override
  public int hashCode() {
    return Objects.hash(protocol, port, firstSeen, lastSeen, count, emptyIsNull(seenAs));
  }

  private static List<String> emptyIsNull(List<String> l) {
    return l == null || l.isEmpty() ? null : l;
  }
}
