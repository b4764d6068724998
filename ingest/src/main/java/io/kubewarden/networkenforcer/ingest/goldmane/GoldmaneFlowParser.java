package io.kubewarden.networkenforcer.ingest.goldmane;

import static io.kubewarden.networkenforcer.ingest.proto.goldmane.Reporter.Dst_VALUE;
import static io.kubewarden.networkenforcer.ingest.proto.goldmane.Reporter.Src_VALUE;

import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.Action;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.EndpointType;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.Flow;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowKey;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.PolicyHit;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.PolicyKind;
import io.kubewarden.networkenforcer.ingest.resolution.LabelOnlyPeer;
import io.kubewarden.networkenforcer.ingest.resolution.Resolution;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadInference;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a Goldmane {@code FlowResult} (a 15 s aggregate of one flow key) into a flow record.
 * Pod-to-pod flows and flows between a pod and a network outside the cluster ({@code Network},
 * {@code NetworkSet}: the address is not reported, so that end has none) count; host endpoints are
 * dropped. An allowed pod-to-pod connection is reported by both ends; the first report of an
 * interval is kept and the other end's copy dropped, so a connection only its source reported still
 * counts ({@link ReportPairing}; to an outside network the source's report is the only one). A deny
 * is kept from either end, with that end as the reporter (the side whose policy dropped it). A
 * workload nobody names is inferred from the aggregated name and labels ({@link
 * WorkloadInference}).
 */
public final class GoldmaneFlowParser {
  /** Two ends of every connection of a 15 s interval for a large cluster. */
  private static final int PAIRING_CAPACITY = 100_000;

  private final WorkloadResolver resolver;
  private final WorkloadInference inference;
  private final Clock clock;
  private final ReportPairing pairing = new ReportPairing(PAIRING_CAPACITY);

  public GoldmaneFlowParser(WorkloadResolver resolver, Clock clock) {
    this.resolver = resolver;
    this.inference = new WorkloadInference(resolver.view());
    this.clock = clock;
  }

  public ParseOutcome parse(FlowResult result) {
    if (!result.hasFlow() || !result.getFlow().hasKey()) {
      return ParseOutcome.dropped(DropReason.INCOMPLETE);
    }
    Flow flow = result.getFlow();
    FlowKey key = flow.getKey();
    boolean externalSource = isNetwork(key.getSourceTypeValue());
    boolean externalDestination = isNetwork(key.getDestTypeValue());
    if (externalSource && externalDestination) {
      return ParseOutcome.dropped(DropReason.EXTERNAL);
    }
    DropReason peer = externalSource ? null : peerReason(key.getSourceTypeValue());
    if (peer == null && !externalDestination) {
      peer = peerReason(key.getDestTypeValue());
    }
    if (peer != null) {
      return ParseOutcome.dropped(peer);
    }
    Verdict verdict;
    Reporter reporter =
        switch (key.getReporterValue()) {
          case Src_VALUE -> Reporter.SOURCE;
          case Dst_VALUE -> Reporter.DESTINATION;
          default -> Reporter.UNKNOWN;
        };
    switch (key.getActionValue()) {
      case Action.Allow_VALUE -> verdict = Verdict.FORWARDED;
      case Action.Deny_VALUE -> verdict = Verdict.DENIED;
      default -> {
        return ParseOutcome.dropped(DropReason.NOT_A_POLICY_VERDICT);
      }
    }
    Protocol protocol = Protocol.parse(key.getProto()).orElse(null);
    if (protocol == null) {
      return ParseOutcome.dropped(
          key.getProto().isEmpty() ? DropReason.INCOMPLETE : DropReason.UNSUPPORTED_PROTOCOL);
    }
    if (key.getDestPort() < 0 || key.getDestPort() > 65535) {
      return ParseOutcome.dropped(DropReason.INCOMPLETE);
    }
    Resolution src =
        externalSource
            ? outside(key.getSourceNamespace(), key.getSourceName())
            : endpoint(key.getSourceNamespace(), key.getSourceName(), flow.getSourceLabelsList());
    if (!src.resolved() && src.labelPeer() == null) {
      return ParseOutcome.dropped(unresolvedReason(src.dropReason(), verdict));
    }
    Resolution dst =
        externalDestination
            ? outside(key.getDestNamespace(), key.getDestName())
            : endpoint(key.getDestNamespace(), key.getDestName(), flow.getDestLabelsList());
    // An end known only by its labels is kept as the peer of a known workload.
    src = LabelOnlyPeer.asPeerOf(src, dst);
    if (!src.resolved()) {
      return ParseOutcome.dropped(unresolvedReason(src.dropReason(), verdict));
    }
    dst = LabelOnlyPeer.asPeerOf(dst, src);
    if (!dst.resolved()) {
      return ParseOutcome.dropped(unresolvedReason(dst.dropReason(), verdict));
    }
    if (verdict == Verdict.FORWARDED
        && !pairing.firstReport(connectionKey(key, flow.getStartTime()))) {
      return ParseOutcome.dropped(DropReason.DUPLICATE_REPORT);
    }
    PolicyRef denying = verdict == Verdict.DENIED ? denyingPolicy(key) : null;
    // A start time no Instant can hold (a corrupt record) is as good as none: the receipt time
    // stands in.
    Instant time =
        flow.getStartTime() > 0 && flow.getStartTime() <= Instant.MAX.getEpochSecond()
            ? Instant.ofEpochSecond(flow.getStartTime())
            : clock.instant();
    return ParseOutcome.of(
        new FlowRecord(
            time,
            Provider.calico,
            protocol,
            (int) key.getDestPort(),
            src.endpoint(),
            dst.endpoint(),
            verdict,
            denying,
            Math.max(1, flow.getNumConnectionsStarted()),
            reporter));
  }

  private static boolean isNetwork(int endpointType) {
    return endpointType == EndpointType.Network_VALUE
        || endpointType == EndpointType.NetworkSet_VALUE;
  }

  /**
   * Goldmane aggregates outside addresses without the address: {@code pub}/{@code pvt} for a
   * Network, the set's name for a NetworkSet. The end is outside the cluster, address unknown.
   */
  private static Resolution outside(String namespace, String name) {
    String network =
        namespace == null || namespace.isEmpty() || "-".equals(namespace)
            ? name
            : namespace + "/" + name;
    return Resolution.of(
        FlowEndpoint.outsideCluster(
            null,
            new ExternalEndpoint(List.of(), network == null || network.isEmpty() ? null : network)),
        null);
  }

  private Resolution endpoint(String namespace, String aggregatedName, List<String> labels) {
    Resolution r = resolver.byAggregatedName(namespace, aggregatedName);
    if (r.dropReason() != DropReason.UNKNOWN_POD) {
      return r;
    }
    Map<String, String> podLabels = new TreeMap<>();
    for (String label : labels) {
      int eq = label.indexOf('=');
      if (eq > 0) {
        podLabels.put(label.substring(0, eq), label.substring(eq + 1));
      }
    }
    return inference.infer(namespace, aggregatedName, podLabels, null, null);
  }

  /**
   * The same connection as the other end reports it in the same interval: the key without reporter
   * and policies.
   */
  private static String connectionKey(FlowKey key, long startTime) {
    return key.getSourceNamespace()
        + "/"
        + key.getSourceName()
        + ">"
        + key.getDestNamespace()
        + "/"
        + key.getDestName()
        + ":"
        + key.getDestPort()
        + "/"
        + key.getProto()
        + "@"
        + startTime;
  }

  /** A deny that names a pod nobody can resolve is a lost violation, not just an unknown pod. */
  private static DropReason unresolvedReason(DropReason reason, Verdict verdict) {
    boolean unresolvable =
        reason == DropReason.UNKNOWN_POD
            || reason == DropReason.UNKNOWN_WORKLOAD
            || reason == DropReason.AMBIGUOUS_WORKLOAD;
    return unresolvable && verdict != Verdict.FORWARDED ? DropReason.UNRESOLVED_DENY : reason;
  }

  private static DropReason peerReason(int endpointType) {
    return switch (endpointType) {
      case EndpointType.WorkloadEndpoint_VALUE -> null;
      case EndpointType.HostEndpoint_VALUE -> DropReason.HOST;
      case EndpointType.Network_VALUE, EndpointType.NetworkSet_VALUE -> DropReason.EXTERNAL;
      default -> DropReason.INCOMPLETE;
    };
  }

  /** The enforced policy that denied: the policy itself, or the trigger of an end-of-tier deny. */
  private static PolicyRef denyingPolicy(FlowKey key) {
    if (!key.hasPolicies()) {
      return null;
    }
    for (PolicyHit hit : key.getPolicies().getEnforcedPoliciesList()) {
      if (hit.getActionValue() != Action.Deny_VALUE) {
        continue;
      }
      PolicyHit named =
          hit.getKindValue() == PolicyKind.EndOfTier_VALUE && hit.hasTrigger()
              ? hit.getTrigger()
              : hit;
      if (named.getName().isEmpty()) {
        continue;
      }
      return new PolicyRef(
          kindName(named),
          named.getNamespace().isEmpty() ? null : named.getNamespace(),
          named.getName());
    }
    return null;
  }

  private static String kindName(PolicyHit hit) {
    PolicyKind kind = PolicyKind.forNumber(hit.getKindValue());
    return kind == null || kind == PolicyKind.KindUnspecified ? null : kind.name();
  }
}
