package io.kubewarden.networkenforcer.ingest.hubble;

import com.google.protobuf.Timestamp;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.DropReason;
import io.kubewarden.networkenforcer.ingest.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Endpoint;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Flow;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.FlowType;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Layer4;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Policy;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.TrafficDirection;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.resolution.CronJobResolution;
import io.kubewarden.networkenforcer.ingest.resolution.Resolution;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a Hubble {@code GetFlowsResponse} into flow records: forwarded L3/L4 flows for learning,
 * policy drops (POLICY_DENIED, POLICY_DENY) as denies and audit verdicts as dry-run denies.
 * Replies, node-status and lost-events responses carry no new connection, and a connection
 * reported again (by the other node, for a later packet, as verdict and drop) counts once.
 * A world peer (reserved identity world, or a CIDR/FQDN identity) is an end outside the cluster
 * with its address and the DNS names Hubble reports for it; host and remote-node peers are the
 * nodes and are dropped, never learned.
 */
public final class HubbleFlowParser {
  private static final Logger LOG = LoggerFactory.getLogger(HubbleFlowParser.class);
  private static final int POLICY_DENIED = 133;
  private static final int POLICY_DENY = 181;
  private static final int FIRST_ALLOCATED_IDENTITY = 256;
  private static final String LABEL_PREFIX = "k8s:";
  private static final String SERVICE_ACCOUNT_LABEL = "k8s:io.cilium.k8s.policy.serviceaccount=";
  private static final String NAMESPACE_LABEL_PREFIX = "k8s:io.cilium.k8s.namespace.labels.";

  /** Long enough for both nodes' reports and a SYN retransmit, short enough to see repeat connections. */
  private static final Duration SIGHTING_WINDOW = Duration.ofSeconds(30);
  private static final int SIGHTING_CAPACITY = 100_000;

  private final WorkloadResolver resolver;
  private final Clock clock;
  private final ConnectionSightings sightings = new ConnectionSightings(SIGHTING_WINDOW, SIGHTING_CAPACITY);

  public HubbleFlowParser(WorkloadResolver resolver, Clock clock) {
    this.resolver = resolver;
    this.clock = clock;
  }

  public ParseOutcome parse(GetFlowsResponse response) {
    switch (response.getResponseTypesCase()) {
      case FLOW:
        return parse(response.getFlow(), response.getTime());
      case NODE_STATUS:
        LOG.info("hubble relay node status {}: {} {}", response.getNodeStatus().getStateChange(),
            response.getNodeStatus().getNodeNamesList(), response.getNodeStatus().getMessage());
        return ParseOutcome.dropped(DropReason.NOT_A_FLOW);
      case LOST_EVENTS:
        return ParseOutcome.lostEvents(response.getLostEvents().getNumEventsLost());
      default:
        // A response type newer than our proto subset.
        return ParseOutcome.dropped(DropReason.NOT_A_FLOW);
    }
  }

  public ParseOutcome parse(Flow flow, Timestamp responseTime) {
    if (isReply(flow)) {
      return ParseOutcome.dropped(DropReason.REPLY);
    }
    if (flow.getTypeValue() != FlowType.L3_L4_VALUE && flow.getTypeValue() != FlowType.UNKNOWN_TYPE_VALUE) {
      return ParseOutcome.dropped(DropReason.NOT_A_POLICY_VERDICT);
    }
    Verdict verdict = verdict(flow);
    if (verdict == null) {
      return ParseOutcome.dropped(DropReason.NOT_A_POLICY_VERDICT);
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
    if (port > 65535) {
      return ParseOutcome.dropped(DropReason.INCOMPLETE);
    }
    String srcIp = flow.hasIP() ? flow.getIP().getSource() : "";
    String dstIp = flow.hasIP() ? flow.getIP().getDestination() : "";
    Resolution src = endpoint(flow.getSource(), srcIp, flow.getSourceNamesList());
    if (!src.resolved()) {
      return ParseOutcome.dropped(src.dropReason());
    }
    Resolution dst = endpoint(flow.getDestination(), dstIp, flow.getDestinationNamesList());
    if (!dst.resolved()) {
      return ParseOutcome.dropped(dst.dropReason());
    }
    if (src.endpoint().isExternal() && dst.endpoint().isExternal()) {
      // Traffic passing through between two outside addresses: no workload learns from it.
      return ParseOutcome.dropped(DropReason.EXTERNAL);
    }
    Reporter reporter = switch (flow.getTrafficDirectionValue()) {
      case TrafficDirection.INGRESS_VALUE -> Reporter.DESTINATION;
      case TrafficDirection.EGRESS_VALUE -> Reporter.SOURCE;
      default -> Reporter.UNKNOWN;
    };
    Instant time = time(flow.hasTime() ? flow.getTime() : responseTime);
    if (sourcePort != 0 && !sightings.firstSighting(srcIp + ":" + sourcePort + ">" + dstIp + ":" + port + "/"
        + protocol + "/" + verdict, time)) {
      return ParseOutcome.dropped(DropReason.DUPLICATE_REPORT);
    }
    PolicyRef denying = verdict == Verdict.FORWARDED ? null : denyingPolicy(flow, reporter);
    return ParseOutcome.of(new FlowRecord(time, Provider.cilium, protocol, port, src.endpoint(), dst.endpoint(),
        verdict, denying, 1, reporter));
  }

  private static boolean isReply(Flow flow) {
    // is_reply is a BoolValue: absent means unknown; fall back to the deprecated bool then.
    return flow.hasIsReply() ? flow.getIsReply().getValue() : flow.getReply();
  }

  /** FORWARDED, DENIED (a policy drop) or DRY_RUN_DENIED (audit mode); null for anything else. */
  private static Verdict verdict(Flow flow) {
    switch (flow.getVerdictValue()) {
      case io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Verdict.FORWARDED_VALUE:
        return Verdict.FORWARDED;
      case io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Verdict.DROPPED_VALUE:
        int reason = flow.getDropReasonDescValue() != 0 ? flow.getDropReasonDescValue() : flow.getDropReason();
        return reason == POLICY_DENIED || reason == POLICY_DENY ? Verdict.DENIED : null;
      case io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Verdict.AUDIT_VALUE:
        // Policy audit mode: the policy would have dropped this flow.
        return Verdict.DRY_RUN_DENIED;
      default:
        return null;
    }
  }

  private static PolicyRef denyingPolicy(Flow flow, Reporter reporter) {
    List<Policy> policies = switch (reporter) {
      case DESTINATION -> flow.getIngressDeniedByList();
      case SOURCE -> flow.getEgressDeniedByList();
      case UNKNOWN -> flow.getIngressDeniedByCount() > 0 ? flow.getIngressDeniedByList()
          : flow.getEgressDeniedByList();
    };
    return policies.stream().filter(p -> !p.getName().isEmpty()).findFirst()
        .map(p -> new PolicyRef(p.getKind().isEmpty() ? null : p.getKind(),
            p.getNamespace().isEmpty() ? null : p.getNamespace(), p.getName()))
        .orElse(null);
  }

  private Resolution endpoint(Endpoint ep, String ip, List<String> dnsNames) {
    if (ep.getIdentity() > 0 && ep.getIdentity() < FIRST_ALLOCATED_IDENTITY || ep.getPodName().isEmpty()) {
      DropReason reason = reservedReason(ep);
      if (reason == DropReason.EXTERNAL) {
        // world (or a CIDR/FQDN identity): an address outside the cluster, learned as an ipBlock.
        return Resolution.of(FlowEndpoint.outsideCluster(ip.isEmpty() ? null : ip, ExternalEndpoint.of(dnsNames)),
            null);
      }
      return Resolution.dropped(reason);
    }
    Resolution r = resolver.byName(ep.getNamespace(), ep.getPodName());
    if (r.dropReason() == DropReason.UNKNOWN_POD && !ip.isEmpty()) {
      r = resolver.byIp(ip);
    }
    if (r.dropReason() == DropReason.UNKNOWN_POD) {
      // The pod is gone already; Hubble still names its workload and labels.
      return fromHubbleMetadata(ep, ip).orElse(r);
    }
    return r;
  }

  private static DropReason reservedReason(Endpoint ep) {
    int id = ep.getIdentity();
    List<String> labels = ep.getLabelsList();
    if (id == 1 || id == 6 || labels.contains("reserved:host") || labels.contains("reserved:remote-node")) {
      return DropReason.HOST;
    }
    if (id == 2 || id == 9 || id == 10 || labels.stream().anyMatch(l -> l.startsWith("reserved:world")
        || l.startsWith("cidr:") || l.startsWith("fqdn:"))) {
      return DropReason.EXTERNAL;
    }
    if (id > 0 && id < FIRST_ALLOCATED_IDENTITY || labels.stream().anyMatch(l -> l.startsWith("reserved:"))) {
      return DropReason.RESERVED_IDENTITY;
    }
    return DropReason.UNKNOWN_POD;
  }

  private Optional<Resolution> fromHubbleMetadata(Endpoint ep, String ip) {
    if (ep.getWorkloadsCount() == 0) {
      return Optional.empty();
    }
    Optional<WorkloadKind> kind = WorkloadKind.fromKind(ep.getWorkloads(0).getKind());
    if (kind.isEmpty()) {
      return Optional.of(Resolution.dropped(DropReason.NOT_A_WORKLOAD));
    }
    String ns = ep.getNamespace();
    String name = ep.getWorkloads(0).getName();
    var selector = switch (kind.get()) {
      case Deployment -> resolver.view().deployment(ns, name).map(d -> d.getSpec().getSelector());
      case StatefulSet -> resolver.view().statefulSet(ns, name).map(s -> s.getSpec().getSelector());
      case DaemonSet -> resolver.view().daemonSet(ns, name).map(d -> d.getSpec().getSelector());
      case CronJob -> resolver.view().cronJob(ns, name).flatMap(CronJobResolution::selector);
    };
    if (selector.isEmpty()) {
      return Optional.of(Resolution.dropped(DropReason.UNKNOWN_WORKLOAD));
    }
    Map<String, String> podLabels = new HashMap<>();
    Map<String, String> nsLabels = new HashMap<>(resolver.view().namespaceLabels(ns));
    String serviceAccount = null;
    for (String label : ep.getLabelsList()) {
      if (label.startsWith(SERVICE_ACCOUNT_LABEL)) {
        serviceAccount = label.substring(SERVICE_ACCOUNT_LABEL.length());
      } else if (label.startsWith(NAMESPACE_LABEL_PREFIX)) {
        putLabel(nsLabels, label.substring(NAMESPACE_LABEL_PREFIX.length()));
      } else if (label.startsWith(LABEL_PREFIX) && !label.startsWith("k8s:io.cilium.k8s.")
          && !label.startsWith("k8s:io.kubernetes.pod.namespace=")) {
        putLabel(podLabels, label.substring(LABEL_PREFIX.length()));
      }
    }
    return Optional.of(Resolution.of(FlowEndpoint.builder().namespace(ns).workload(kind.get(), name)
        .workloadSelector(selector.get()).podLabels(podLabels).namespaceLabels(nsLabels)
        .podName(ep.getPodName()).ip(ip.isEmpty() ? null : ip).serviceAccount(serviceAccount).build(), null));
  }

  private static void putLabel(Map<String, String> labels, String keyValue) {
    int eq = keyValue.indexOf('=');
    if (eq > 0) {
      labels.put(keyValue.substring(0, eq), keyValue.substring(eq + 1));
    }
  }

  private Instant time(Timestamp ts) {
    if (ts == null || (ts.getSeconds() == 0 && ts.getNanos() == 0)) {
      return clock.instant();
    }
    return Instant.ofEpochSecond(ts.getSeconds(), ts.getNanos());
  }
}
