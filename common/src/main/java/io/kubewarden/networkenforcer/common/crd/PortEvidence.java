package io.kubewarden.networkenforcer.common.crd;

import java.util.Objects;

/** Evidence for one port of one rule: when it was first and last seen, and how often. */
public class PortEvidence {
  private String protocol;
  private String port;

  /** RFC 3339. */
  private String firstSeen;

  /** RFC 3339. */
  private String lastSeen;

  private long count;

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

  @Override
  public boolean equals(Object o) {
    return o instanceof PortEvidence p
        && count == p.count
        && Objects.equals(protocol, p.protocol)
        && Objects.equals(port, p.port)
        && Objects.equals(firstSeen, p.firstSeen)
        && Objects.equals(lastSeen, p.lastSeen);
  }

  @Override
  public int hashCode() {
    return Objects.hash(protocol, port, firstSeen, lastSeen, count);
  }
}
