package io.kubewarden.networkenforcer.processor.learning;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Merges one forwarded flow into a target's allow-list, as the API contract describes ("What a
 * learned proposal contains"). Peers are never merged with each other; ports are merged per peer.
 *
 * <p>A flow with port 0 (unknown) teaches nothing: a rule without ports allows every port, and a
 * rule with port 0 matches nothing, so neither would be an honest allow-list. Such flows are
 * counted ({@code learning.skipped{reason=unknown-port}}).
 */
public final class AllowListLearner {

  /** What learning one flow did. */
  public sealed interface Outcome {}

  /** The flow taught nothing, for this reason (a metric tag). */
  public record Skipped(String reason) implements Outcome {}

  /**
   * The new state; {@code allowListChanged} when a peer, a port or the own selector is new (a new
   * proposal must be emitted), otherwise {@code state} is the current one and only evidence moves.
   * The flow's evidence belongs to {@code peerKey}/{@code portKey}.
   */
  public record Learned(LearnedAllowList state, boolean allowListChanged, String peerKey, String portKey)
      implements Outcome {}

  private final Backend backend;

  public AllowListLearner(Backend backend) {
    this.backend = backend;
  }

  public Outcome learn(LearnedAllowList current, TargetKey target, FlowRecord flow) {
    if (flow.dstPort() == 0) {
      return new Skipped("unknown-port");
    }
    return backend == Backend.istio ? learnIstio(current, flow) : learnKubernetes(current, target, flow);
  }

  private Outcome learnKubernetes(LearnedAllowList current, TargetKey target, FlowRecord flow) {
    if (flow.protocol() != Protocol.TCP && flow.protocol() != Protocol.UDP) {
      return new Skipped("protocol-not-learned");
    }
    boolean ingress = target.direction() == Direction.Ingress;
    FlowEndpoint own = ingress ? flow.dst() : flow.src();
    FlowEndpoint peer = ingress ? flow.src() : flow.dst();
    if (own.workloadSelector() == null) {
      return new Skipped("no-own-selector");
    }
    Optional<WorkloadRef> peerWorkload = peer.workload();
    if (peerWorkload.isEmpty()) {
      return new Skipped("peer-not-a-workload");
    }
    if (peer.workloadSelector() == null) {
      return new Skipped("no-peer-selector");
    }
    return merge(current, own.workloadSelector(), own.inferred(), peerWorkload.get().key(), peer.namespace(),
        peer.workloadSelector(), peer.inferred(), flow);
  }

  private Outcome learnIstio(LearnedAllowList current, FlowRecord flow) {
    if (flow.protocol() != Protocol.TCP) {
      return new Skipped("istio-not-tcp");
    }
    Optional<String> principal = flow.src().principal();
    if (principal.isEmpty()) {
      return new Skipped("no-source-identity");
    }
    if (flow.dst().workloadSelector() == null) {
      return new Skipped("no-own-selector");
    }
    return merge(current, flow.dst().workloadSelector(), flow.dst().inferred(), principal.get(), null, null, false,
        flow);
  }

  private Outcome merge(LearnedAllowList current, LabelSelector ownSelector, boolean ownInferred, String peerKey,
      String peerNamespace, LabelSelector peerSelector, boolean peerInferred, FlowRecord flow) {
    LearnedPort port = new LearnedPort(flow.protocol(), flow.dstPort());
    String portKey = port.key();
    // The hot path: a known port of a known peer changes nothing and copies nothing.
    if (current != null && Objects.equals(current.ownSelector(), ownSelector) && current.ownInferred() == ownInferred) {
      LearnedPeer known = current.peers().get(peerKey);
      if (known != null && Objects.equals(known.namespace(), peerNamespace)
          && Objects.equals(known.selector(), peerSelector) && known.inferred() == peerInferred
          && known.ports().containsKey(portKey)) {
        return new Learned(current, false, peerKey, portKey);
      }
    }
    SortedMap<String, LearnedPeer> peers = current == null ? new TreeMap<>() : new TreeMap<>(current.peers());
    LearnedPeer peer = peers.get(peerKey);
    // New peer, or the peer workload was recreated with another selector: the rule changes.
    SortedMap<String, LearnedPort> ports = peer == null ? new TreeMap<>() : new TreeMap<>(peer.ports());
    ports.put(portKey, port);
    // The inferred marks follow the latest flow: a workload the cluster later confirms loses its mark.
    peers.put(peerKey, new LearnedPeer(peerNamespace, peerSelector, ports, peerInferred));
    boolean dirty = current != null && current.evidenceDirty();
    return new Learned(new LearnedAllowList(backend, ownSelector, peers, dirty, ownInferred), true, peerKey, portKey);
  }
}
