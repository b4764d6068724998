package io.kubewarden.networkenforcer.ingest.hubble;

import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Flow;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.L7FlowType;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Layer4;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.TraceReason;

/**
 * Tells whether a Hubble record travels in the request or the reply direction of its connection.
 * Learning a reply as a rule would allow the client's ephemeral port on the server, so a record
 * whose direction cannot be told is never learned.
 *
 * <p>In order of trust: an L7 record's type (a request is from the client); {@code is_reply} when
 * present (Cilium 1.10+ sets it on most records, older ones leave it out); the deprecated {@code
 * reply} flag when true; policy verdicts and policy drops (policy is evaluated only for packets
 * that open a connection); the trace reason that goes with the observation point of trace events
 * (NEW and REOPENED open a connection, REPLY answers one); the TCP flags (a SYN alone opens,
 * SYN+ACK answers; also read from the {@code Summary} text of older records); last, the port pair
 * (an ephemeral source towards a service port is a request, a service port towards an ephemeral
 * port is a reply).
 */
final class ReplyDetection {
  /** Linux starts its ephemeral range here (32768-60999); Windows uses 49152-65535. */
  static final int FIRST_EPHEMERAL_PORT = 32768;

  private static final int POLICY_VERDICT_EVENT = 5;

  enum Direction {
    REQUEST,
    REPLY,
    UNKNOWN
  }

  private ReplyDetection() {}

  static Direction of(Flow flow, boolean policyDrop) {
    if (flow.hasL7() && flow.getL7().getType() == L7FlowType.REQUEST) {
      return Direction.REQUEST; // the proxy's record of a request: source is the client
    }
    if (flow.hasIsReply()) {
      return flow.getIsReply().getValue() ? Direction.REPLY : Direction.REQUEST;
    }
    if (flow.getReply()) {
      return Direction.REPLY;
    }
    if (policyDrop
        || flow.hasEventType() && flow.getEventType().getType() == POLICY_VERDICT_EVENT) {
      return Direction.REQUEST;
    }
    switch (flow.getTraceReasonValue()) {
      case TraceReason.NEW_VALUE, TraceReason.REOPENED_VALUE -> {
        return Direction.REQUEST;
      }
      case TraceReason.REPLY_VALUE -> {
        return Direction.REPLY;
      }
      default -> {
        // ESTABLISHED, RELATED or not set: the packet itself has to tell.
      }
    }
    Direction byFlags = byTcpFlags(flow);
    if (byFlags != Direction.UNKNOWN) {
      return byFlags;
    }
    return byPorts(flow.getL4());
  }

  private static Direction byTcpFlags(Flow flow) {
    boolean syn;
    boolean ack;
    if (flow.getL4().hasTCP() && flow.getL4().getTCP().hasFlags()) {
      syn = flow.getL4().getTCP().getFlags().getSYN();
      ack = flow.getL4().getTCP().getFlags().getACK();
    } else if (flow.getSummary().startsWith("TCP Flags:")) {
      String flags = flow.getSummary().substring("TCP Flags:".length());
      syn = hasFlag(flags, "SYN");
      ack = hasFlag(flags, "ACK");
    } else {
      return Direction.UNKNOWN;
    }
    if (syn) {
      return ack ? Direction.REPLY : Direction.REQUEST;
    }
    return Direction.UNKNOWN;
  }

  private static boolean hasFlag(String flags, String flag) {
    for (String f : flags.split(",")) {
      if (f.trim().equals(flag)) {
        return true;
      }
    }
    return false;
  }

  private static Direction byPorts(Layer4 l4) {
    int src;
    int dst;
    switch (l4.getProtocolCase()) {
      case TCP -> {
        src = l4.getTCP().getSourcePort();
        dst = l4.getTCP().getDestinationPort();
      }
      case UDP -> {
        src = l4.getUDP().getSourcePort();
        dst = l4.getUDP().getDestinationPort();
      }
      case SCTP -> {
        src = l4.getSCTP().getSourcePort();
        dst = l4.getSCTP().getDestinationPort();
      }
      default -> {
        return Direction.UNKNOWN;
      }
    }
    boolean srcEphemeral = src >= FIRST_EPHEMERAL_PORT;
    boolean dstEphemeral = dst >= FIRST_EPHEMERAL_PORT;
    if (src > 0 && srcEphemeral && !dstEphemeral) {
      return Direction.REQUEST;
    }
    if (dstEphemeral && src > 0 && !srcEphemeral) {
      return Direction.REPLY;
    }
    return Direction.UNKNOWN;
  }
}
