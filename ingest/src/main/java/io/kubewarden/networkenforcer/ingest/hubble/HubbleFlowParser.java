package io.kubewarden.networkenforcer.ingest.hubble;

import static io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Verdict.AUDIT_VALUE;
import static io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Verdict.DROPPED_VALUE;
import static io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Verdict.FORWARDED_VALUE;
import static io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Verdict.REDIRECTED_VALUE;

import com.google.protobuf.Timestamp;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Sighting;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Endpoint;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Flow;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.FlowType;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.L7FlowType;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Layer4;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Policy;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.TrafficDirection;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.resolution.CronJobResolution;
import io.kubewarden.networkenforcer.ingest.resolution.GeneratedPodLabels;
import io.kubewarden.networkenforcer.ingest.resolution.LabelOnlyPeer;
import io.kubewarden.networkenforcer.ingest.resolution.Resolution;
import io.kubewarden.networkenforcer.ingest.resolution.StandaloneJobPeer;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadInference;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a Hubble {@code GetFlowsResponse} into flow records: forwarded and redirected L3/L4 flows
 * and forwarded L7 requests (HTTP, DNS, Kafka: the connection the proxy passed) for learning,
 * policy drops (POLICY_DENIED, POLICY_DENY, drops of policy-verdict events) as denies and audit
 * verdicts as dry-run denies. Replies ({@link ReplyDetection}), node-status and lost-events
 * responses carry no new connection, and a connection reported again (by the other node, for a
 * later packet, as verdict and drop) counts once. A pod that neither the cluster view nor the
 * record's {@code workloads} resolves is inferred from its name and labels ({@link
 * WorkloadInference}).
 */
public final class HubbleFlowParser {
  private static final Logger LOG = LoggerFactory.getLogger(HubbleFlowParser.class);
  private static final int POLICY_DENIED = 133;
  private static final int POLICY_DENY = 181;
  private static final int FIRST_ALLOCATED_IDENTITY = 256;
  private static final int POLICY_VERDICT_EVENT = 5;
  private static final int SOCKET_TRACE_EVENT = 7;
  private static final int L7_EVENT = 129;

  /**
   * Long enough for both nodes' reports and a SYN retransmit, short enough to see repeat
   * connections.
   */
  private static final Duration SIGHTING_WINDOW = Duration.ofSeconds(30);

  private static final int SIGHTING_CAPACITY = 100_000;

  private final WorkloadResolver resolver;
  private final WorkloadInference inference;
  private final Clock clock;
  private final ConnectionSightings sightings =
      new ConnectionSightings(SIGHTING_WINDOW, SIGHTING_CAPACITY);

  /**
   * Node-local reading: the Cilium cluster of this node; null when one reader sees every node
   * (Relay).
   */
  private final String nodeLocalCluster;

  public HubbleFlowParser(WorkloadResolver resolver, Clock clock) {
    this(resolver, clock, null);
  }

  /**
   * @param nodeLocalCluster set when this parser reads one node's Hubble server (its Cilium cluster
   *     name): the copy of a connection another node reports too is left to that node's reader
   */
  public HubbleFlowParser(WorkloadResolver resolver, Clock clock, String nodeLocalCluster) {
    this.resolver = resolver;
    this.inference = new WorkloadInference(resolver.view());
    this.clock = clock;
    this.nodeLocalCluster = nodeLocalCluster;
  }

  public ParseOutcome parse(GetFlowsResponse response) {
    switch (response.getResponseTypesCase()) {
      case FLOW:
        return parse(response.getFlow(), response.getTime());
      case NODE_STATUS:
        return nodeStatus(response);
      case LOST_EVENTS:
        return lostEvents(response);
      default:
        // A response type newer than our proto subset.
        return ParseOutcome.dropped(DropReason.NOT_A_FLOW);
    }
  }

  /**
   * Relay's word on nodes: unavailable or in error means their flows are missed from then on (a
   * loss nobody counts); connected again, or gone from the cluster, ends that. Other states say
   * nothing.
   */
  private ParseOutcome nodeStatus(GetFlowsResponse response) {
    var status = response.getNodeStatus();
    LOG.info(
        "hubble relay node status {}: {} {}",
        status.getStateChange(),
        status.getNodeNamesList(),
        status.getMessage());
    Instant at = time(response.hasTime() ? response.getTime() : null);
    return switch (status.getStateChangeValue()) {
      case NODE_CONNECTED, NODE_GONE ->
          ParseOutcome.nodeStatus(true, status.getNodeNamesList(), at);
      case NODE_UNAVAILABLE, NODE_ERROR ->
          ParseOutcome.nodeStatus(false, status.getNodeNamesList(), at);
      default -> ParseOutcome.dropped(DropReason.NOT_A_FLOW);
    };
  }

  /** relay.NodeState values (wire-formats.md). */
  private static final int NODE_CONNECTED = 1;

  private static final int NODE_UNAVAILABLE = 2;
  private static final int NODE_GONE = 3;
  private static final int NODE_ERROR = 4;

  /**
   * A loss report: its count (uint64; a count beyond a long is taken as the largest long), the node
   * Relay names, and the time of the last lost event, else of the response, else now.
   */
  private ParseOutcome lostEvents(GetFlowsResponse response) {
    var lost = response.getLostEvents();
    long count = lost.getNumEventsLost() < 0 ? Long.MAX_VALUE : lost.getNumEventsLost();
    String node = response.getNodeName().isEmpty() ? null : response.getNodeName();
    Instant at =
        time(lost.hasLast() ? lost.getLast() : response.hasTime() ? response.getTime() : null);
    return ParseOutcome.lostEvents(count, node, at);
  }

  public ParseOutcome parse(Flow flow, Timestamp responseTime) {
    DropReason notAFlow = recordKindReason(flow);
    if (notAFlow != null) {
      return ParseOutcome.dropped(notAFlow);
    }
    Verdict verdict = verdict(flow);
    if (verdict == null) {
      return ParseOutcome.dropped(unusableVerdictReason(flow));
    }
    if (!flow.hasL4() || !flow.hasSource() || !flow.hasDestination()) {
      return ParseOutcome.dropped(DropReason.INCOMPLETE);
    }
    Protocol protocol;
    int port;
    int sourcePort;
    Layer4 l4 = flow.getL4();
    switch (l4.getProtocolCase()) {
      case TCP -> {
        protocol = Protocol.TCP;
        port = l4.getTCP().getDestinationPort();
        sourcePort = l4.getTCP().getSourcePort();
      }
      case UDP -> {
        protocol = Protocol.UDP;
        port = l4.getUDP().getDestinationPort();
        sourcePort = l4.getUDP().getSourcePort();
      }
      case SCTP -> {
        protocol = Protocol.SCTP;
        port = l4.getSCTP().getDestinationPort();
        sourcePort = l4.getSCTP().getSourcePort();
      }
      case PROTOCOL_NOT_SET -> {
        return ParseOutcome.dropped(DropReason.INCOMPLETE);
      }
      default -> {
        return ParseOutcome.dropped(DropReason.UNSUPPORTED_PROTOCOL);
      }
    }
    // uint32 on the wire: a value of 2^31 or more reads as a negative int (found by
    // HubbleProtoFuzzTest).
    if (port < 0 || port > 65535) {
      return ParseOutcome.dropped(DropReason.INCOMPLETE);
    }
    ReplyDetection.Direction direction = ReplyDetection.of(flow, verdict != Verdict.FORWARDED);
    if (direction == ReplyDetection.Direction.REPLY) {
      return ParseOutcome.dropped(DropReason.REPLY);
    }
    if (direction == ReplyDetection.Direction.UNKNOWN) {
      return ParseOutcome.dropped(DropReason.UNKNOWN_DIRECTION);
    }
    HttpRequest http = httpRequest(flow);
    // The source's node publishes the connection; an HTTP request only this (the server's) node
    // saw is still news, on a connection published there.
    boolean sourceNodePublishes =
        nodeLocalCluster != null && verdict == Verdict.FORWARDED && reportedAtTheSourceNode(flow);
    if (sourceNodePublishes && http == null) {
      return ParseOutcome.dropped(DropReason.DUPLICATE_REPORT);
    }
    String srcIp = flow.hasIP() ? flow.getIP().getSource() : "";
    String dstIp = flow.hasIP() ? flow.getIP().getDestination() : "";
    Instant time = time(flow.hasTime() ? flow.getTime() : responseTime);
    String connection =
        sourcePort == 0
            ? null
            : srcIp + ":" + sourcePort + ">" + dstIp + ":" + port + "/" + protocol + "/" + verdict;
    String request = null;
    if (connection != null && http != null) {
      // Each distinct request on a connection is news (its method and path are learned); the same
      // request again on it is not. One on a connection published already says so, and counts
      // nothing where requests are not learned.
      request = connection + " " + http.method() + " " + http.path();
      if (sightings.counted(request, time)) {
        return ParseOutcome.dropped(DropReason.DUPLICATE_REPORT);
      }
      if (sourceNodePublishes || sightings.counted(connection, time)) {
        http = http.onSeenConnection();
        connection = request;
      }
    }
    // Checked before resolving: the connection was counted already, so this copy (the other node's,
    // a
    // later packet) adds nothing, even when its endpoints would not resolve, and resolving it is
    // wasted.
    if (connection != null && sightings.counted(connection, time)) {
      return ParseOutcome.dropped(DropReason.DUPLICATE_REPORT);
    }
    Resolution src = endpoint(flow.getSource(), srcIp, flow.getSourceNamesList());
    if (!src.resolved() && src.labelPeer() == null) {
      return ParseOutcome.dropped(unresolvedReason(src.dropReason(), verdict));
    }
    Resolution dst = endpoint(flow.getDestination(), dstIp, flow.getDestinationNamesList());
    // An end known only by its labels is kept as the peer of a known workload.
    src = LabelOnlyPeer.asPeerOf(src, dst);
    if (!src.resolved()) {
      return ParseOutcome.dropped(unresolvedReason(src.dropReason(), verdict));
    }
    dst = LabelOnlyPeer.asPeerOf(dst, src);
    if (!dst.resolved()) {
      return ParseOutcome.dropped(unresolvedReason(dst.dropReason(), verdict));
    }
    if (src.endpoint().isExternal() && dst.endpoint().isExternal()) {
      // Traffic passing through between two outside addresses: no workload learns from it.
      return ParseOutcome.dropped(DropReason.EXTERNAL);
    }
    Reporter reporter =
        switch (flow.getTrafficDirectionValue()) {
          case TrafficDirection.INGRESS_VALUE -> Reporter.DESTINATION;
          case TrafficDirection.EGRESS_VALUE -> Reporter.SOURCE;
          default -> Reporter.UNKNOWN;
        };
    if (connection != null && !sightings.firstSighting(connection, time)) {
      return ParseOutcome.dropped(DropReason.DUPLICATE_REPORT);
    }
    if (request != null) {
      sightings.firstSighting(request, time);
    }
    PolicyRef denying = verdict == Verdict.FORWARDED ? null : denyingPolicy(flow, reporter);
    return ParseOutcome.of(
        new FlowRecord(
            time,
            Provider.cilium,
            protocol,
            port,
            src.endpoint(),
            dst.endpoint(),
            verdict,
            denying,
            1,
            reporter,
            null,
            isL7(flow) && verdict == Verdict.FORWARDED ? Sighting.L7_REQUEST : null,
            http));
  }

  /**
   * The method and URL path of an HTTP request the proxy forwarded or refused (a refused one names
   * its violation's request); null for any other record.
   */
  private static HttpRequest httpRequest(Flow flow) {
    if (!(isForwardedL7Request(flow) || isRefusedL7Request(flow)) || !flow.getL7().hasHttp()) {
      return null;
    }
    return HttpRequest.of(flow.getL7().getHttp().getMethod(), flow.getL7().getHttp().getUrl());
  }

  /**
   * Node-local reading only. An allowed connection between pods on two nodes is reported by both:
   * at the source's egress on its node and at the destination's ingress on this one. One reader per
   * node cannot see the other copy (Relay's single reader dropped it as a duplicate), so the rule
   * decides instead: the source's node publishes it. An ingress copy whose source is a pod not on
   * this node (endpoint ID 0: Cilium numbers only local endpoints) of this Cilium cluster is that
   * other node's to publish. Denies are reported only where enforced and stay; a source outside the
   * cluster or in another cluster of a mesh has no reader of ours at its end and stays too.
   */
  private boolean reportedAtTheSourceNode(Flow flow) {
    if (flow.getTrafficDirectionValue() != TrafficDirection.INGRESS_VALUE) {
      return false;
    }
    var source = flow.getSource();
    String cluster = source.getClusterName();
    return source.getID() == 0
        && !source.getPodName().isEmpty()
        && (cluster.isEmpty() || cluster.equals(nodeLocalCluster));
  }

  /**
   * Socket and other non-packet records carry no connection of their own to learn, nor do L7
   * replies and samples. An L7 request the proxy let through proves its connection like the L3/L4
   * record of it (which Hubble may not have kept: a capture's filter, a node whose agent only the
   * proxy's access log reached); when both are seen, the connection counts once. An L7 request the
   * proxy refused is a policy's deny below the port: the connection was allowed, the request not.
   */
  private static DropReason recordKindReason(Flow flow) {
    if (isL7(flow)) {
      return isForwardedL7Request(flow) || isRefusedL7Request(flow) ? null : DropReason.L7_RECORD;
    }
    int eventType = flow.hasEventType() ? flow.getEventType().getType() : -1;
    if (flow.getTypeValue() == FlowType.SOCK_VALUE || eventType == SOCKET_TRACE_EVENT) {
      return DropReason.SOCKET_TRACE;
    }
    if (flow.getTypeValue() != FlowType.L3_L4_VALUE
        && flow.getTypeValue() != FlowType.UNKNOWN_TYPE_VALUE) {
      return DropReason.NOT_A_POLICY_VERDICT;
    }
    return null;
  }

  /**
   * A record of Cilium's L7 proxy; the one kind {@link #recordKindReason} lets through is marked
   * {@link Sighting#L7_REQUEST} on its evidence.
   */
  private static boolean isL7(Flow flow) {
    return flow.getTypeValue() == FlowType.L7_VALUE
        || flow.hasEventType() && flow.getEventType().getType() == L7_EVENT;
  }

  /** An L7 request the proxy forwarded. */
  static boolean isForwardedL7Request(Flow flow) {
    return flow.hasL7()
        && flow.getL7().getType() == L7FlowType.REQUEST
        && (flow.getVerdictValue() == FORWARDED_VALUE
            || flow.getVerdictValue() == REDIRECTED_VALUE);
  }

  /**
   * An L7 request the proxy refused ({@code http-request DROPPED}: a policy's L7 rules, such as
   * method and path, did not allow it; the client got 403). The proxy drops for policy only, so no
   * drop reason is needed; Hubble often gives none.
   */
  static boolean isRefusedL7Request(Flow flow) {
    return flow.hasL7()
        && flow.getL7().getType() == L7FlowType.REQUEST
        && flow.getVerdictValue() == DROPPED_VALUE;
  }

  /**
   * FORWARDED (also REDIRECTED: handed to Cilium's L7 proxy, so allowed at L3/L4), DENIED (a policy
   * drop, or any drop a policy-verdict event reports) or DRY_RUN_DENIED (audit mode); null for
   * anything else.
   */
  private static Verdict verdict(Flow flow) {
    switch (flow.getVerdictValue()) {
      case FORWARDED_VALUE, REDIRECTED_VALUE:
        return Verdict.FORWARDED;
      case DROPPED_VALUE:
        return isPolicyDrop(flow) || isRefusedL7Request(flow) ? Verdict.DENIED : null;
      case AUDIT_VALUE:
        // Policy audit mode: the policy would have dropped this flow.
        return Verdict.DRY_RUN_DENIED;
      default:
        return null;
    }
  }

  private static boolean isPolicyDrop(Flow flow) {
    int reason =
        flow.getDropReasonDescValue() != 0 ? flow.getDropReasonDescValue() : flow.getDropReason();
    return reason == POLICY_DENIED
        || reason == POLICY_DENY
        || reason == 0
            && flow.hasEventType()
            && flow.getEventType().getType() == POLICY_VERDICT_EVENT;
  }

  private static DropReason unusableVerdictReason(Flow flow) {
    return flow.getVerdictValue() == DROPPED_VALUE
        ? DropReason.NON_POLICY_DROP
        : DropReason.NOT_A_POLICY_VERDICT;
  }

  /** A deny that names a pod nobody can resolve is a lost violation, not just an unknown pod. */
  private static DropReason unresolvedReason(DropReason reason, Verdict verdict) {
    boolean unresolvable =
        reason == DropReason.UNKNOWN_POD
            || reason == DropReason.UNKNOWN_WORKLOAD
            || reason == DropReason.AMBIGUOUS_WORKLOAD;
    return unresolvable && verdict != Verdict.FORWARDED ? DropReason.UNRESOLVED_DENY : reason;
  }

  private static PolicyRef denyingPolicy(Flow flow, Reporter reporter) {
    List<Policy> policies =
        switch (reporter) {
          case DESTINATION -> flow.getIngressDeniedByList();
          case SOURCE -> flow.getEgressDeniedByList();
          case UNKNOWN ->
              flow.getIngressDeniedByCount() > 0
                  ? flow.getIngressDeniedByList()
                  : flow.getEgressDeniedByList();
        };
    return policies.stream()
        .filter(p -> !p.getName().isEmpty())
        .findFirst()
        .map(
            p ->
                new PolicyRef(
                    p.getKind().isEmpty() ? null : p.getKind(),
                    p.getNamespace().isEmpty() ? null : p.getNamespace(),
                    p.getName()))
        .orElse(null);
  }

  private Resolution endpoint(Endpoint ep, String ip, List<String> dnsNames) {
    boolean reserved =
        ep.getIdentity() > 0 && ep.getIdentity() < FIRST_ALLOCATED_IDENTITY
            || anyLabelStartsWith(ep, "reserved:");
    if (reserved || ep.getPodName().isEmpty()) {
      DropReason reason = reservedReason(ep);
      if (reason == DropReason.EXTERNAL) {
        // world (or a CIDR/FQDN identity): an address outside the cluster, learned as an ipBlock.
        return Resolution.of(
            FlowEndpoint.outsideCluster(ip.isEmpty() ? null : ip, ExternalEndpoint.of(dnsNames)),
            null);
      }
      if (reserved) {
        return Resolution.dropped(reason);
      }
    }
    if (ep.getPodName().isEmpty()) {
      // Field-masked exports may keep the IP but not the pod name.
      return ip.isEmpty() ? Resolution.dropped(reservedReason(ep)) : resolver.byIp(ip);
    }
    // The record names its pod: a pod the cluster no longer knows by that name is never looked up
    // by address, which the kubelet may have handed to another pod since (of another workload,
    // even another namespace) and would grant that pod's traffic to the wrong workload.
    Resolution r = resolver.byName(ep.getNamespace(), ep.getPodName());
    if (r.dropReason() == DropReason.UNKNOWN_POD) {
      // Not in the cluster (any more): Hubble may still name its workload; else the name and labels
      // tell.
      CiliumEndpointLabels labels = CiliumEndpointLabels.of(ep.getLabelsList());
      return fromHubbleMetadata(ep, ip, labels)
          .orElseGet(
              () ->
                  inference.infer(
                      ep.getNamespace(),
                      ep.getPodName(),
                      labels.podLabels(),
                      ip.isEmpty() ? null : ip,
                      labels.serviceAccount()));
    }
    return r;
  }

  /**
   * A loop, not a stream: this runs for both ends of every flow (a stream was a sixth of the
   * resolving thread).
   */
  private static boolean anyLabelStartsWith(Endpoint ep, String prefix) {
    for (int i = 0, n = ep.getLabelsCount(); i < n; i++) {
      if (ep.getLabels(i).startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private static DropReason reservedReason(Endpoint ep) {
    int id = ep.getIdentity();
    List<String> labels = ep.getLabelsList();
    if (id == 1 || labels.contains("reserved:host")) {
      return DropReason.HOST;
    }
    if (id == 6 || labels.contains("reserved:remote-node")) {
      return DropReason.REMOTE_NODE;
    }
    if (id == 2
        || id == 9
        || id == 10
        || labels.stream()
            .anyMatch(
                l ->
                    l.startsWith("reserved:world")
                        || l.startsWith("cidr:")
                        || l.startsWith("fqdn:"))) {
      return DropReason.EXTERNAL;
    }
    if (id > 0 && id < FIRST_ALLOCATED_IDENTITY || anyLabelStartsWith(ep, "reserved:")) {
      return DropReason.RESERVED_IDENTITY;
    }
    return DropReason.UNKNOWN_POD;
  }

  private Optional<Resolution> fromHubbleMetadata(
      Endpoint ep, String ip, CiliumEndpointLabels labels) {
    if (ep.getWorkloadsCount() == 0) {
      return Optional.empty();
    }
    Optional<WorkloadKind> kind = WorkloadKind.fromKind(ep.getWorkloads(0).getKind());
    if (kind.isEmpty() && "Job".equals(ep.getWorkloads(0).getKind())) {
      // Cilium names a Job only when no CronJob owns it: a peer if it opted in (StandaloneJobPeer).
      return Optional.of(
          StandaloneJobPeer.endpoint(
                  ep.getNamespace(),
                  labels.podLabels(),
                  resolver.view().namespaceLabels(ep.getNamespace()))
              .map(
                  b ->
                      Resolution.of(
                          b.podName(ep.getPodName())
                              .ip(ip.isEmpty() ? null : ip)
                              .serviceAccount(labels.serviceAccount())
                              .build(),
                          null))
              .orElseGet(() -> Resolution.dropped(DropReason.NOT_A_WORKLOAD)));
    }
    if (kind.isEmpty()) {
      return Optional.of(Resolution.dropped(DropReason.NOT_A_WORKLOAD));
    }
    String ns = ep.getNamespace();
    String name = ep.getWorkloads(0).getName();
    var selector =
        switch (kind.get()) {
          case Deployment ->
              resolver.view().deployment(ns, name).map(d -> d.getSpec().getSelector());
          case StatefulSet ->
              resolver.view().statefulSet(ns, name).map(s -> s.getSpec().getSelector());
          case DaemonSet -> resolver.view().daemonSet(ns, name).map(d -> d.getSpec().getSelector());
          case CronJob -> resolver.view().cronJob(ns, name).flatMap(CronJobResolution::selector);
        };
    // Hubble names the workload; when the cluster no longer has it, its pod labels stand in for the
    // selector.
    Map<String, String> selectable = GeneratedPodLabels.selectable(labels.podLabels());
    if (selector.isEmpty() && selectable.isEmpty()) {
      return Optional.of(Resolution.dropped(DropReason.UNKNOWN_WORKLOAD));
    }
    Map<String, String> nsLabels = new HashMap<>(resolver.view().namespaceLabels(ns));
    nsLabels.putAll(labels.namespaceLabels());
    return Optional.of(
        Resolution.of(
            FlowEndpoint.builder()
                .namespace(ns)
                .workload(kind.get(), name)
                .workloadSelector(
                    selector.orElseGet(
                        () -> new LabelSelectorBuilder().withMatchLabels(selectable).build()))
                .inferred(selector.isEmpty())
                .podLabels(labels.podLabels())
                .namespaceLabels(nsLabels)
                .podName(ep.getPodName())
                .ip(ip.isEmpty() ? null : ip)
                .serviceAccount(labels.serviceAccount())
                .build(),
            null));
  }

  private Instant time(Timestamp ts) {
    if (ts == null || (ts.getSeconds() == 0 && ts.getNanos() == 0)) {
      return clock.instant();
    }
    try {
      return Instant.ofEpochSecond(ts.getSeconds(), ts.getNanos());
    } catch (DateTimeException | ArithmeticException e) {
      // A time no Instant can hold (a corrupt record) is as good as none: the receipt time stands
      // in.
      return clock.instant();
    }
  }
}
