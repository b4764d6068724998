package io.kubewarden.networkenforcer.common.flow;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Which record of the data plane proved a connection, shown on the evidence of the port it was
 * learned on ({@code seenAs}), so a reviewer can tell a connection seen at both ends from one only
 * a proxy or only the peer reported.
 */
public enum Sighting {
  /** The source's own record (Hubble egress, Goldmane source report). */
  SOURCE_RECORD("source-record"),
  /**
   * The destination's record (Hubble ingress, Goldmane destination report, ztunnel inbound log):
   * for the source's egress, the connection was seen at the other end only.
   */
  DESTINATION_RECORD("destination-record"),
  /** A request Cilium's L7 proxy (HTTP, DNS, Kafka) let through. */
  L7_REQUEST("l7-request");

  private final String label;

  Sighting(String label) {
    this.label = label;
  }

  @JsonValue
  public String label() {
    return label;
  }

  /** The sighting of this label; null for a label this version does not know. */
  @JsonCreator
  public static Sighting ofLabel(String label) {
    for (Sighting s : values()) {
      if (s.label.equals(label)) {
        return s;
      }
    }
    return null;
  }

  /** What a record of this reporter is, when the record does not say: null for UNKNOWN. */
  public static Sighting ofReporter(Reporter reporter) {
    return switch (reporter) {
      case SOURCE -> SOURCE_RECORD;
      case DESTINATION -> DESTINATION_RECORD;
      case UNKNOWN -> null;
    };
  }
}
