package io.kubewarden.networkenforcer.processor.learning;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Merges one forwarded flow into a target's allow-list, as the API contract describes ("What a
 * learned proposal contains"). Peers are never merged with each other; ports are merged per peer.
 *
 * <p>A flow with port 0 (unknown) teaches nothing: a rule without ports allows every port, and a
 * rule with port 0 matches nothing, so neither would be an honest allow-list. Such flows are
 * counted ({@code learning.skipped{reason=unknown-port}}).
 *
 * <p>A peer outside the cluster is learned as an ipBlock peer ({@link ExternalPeerRule}), on the
 * Kubernetes backend only: an Istio AuthorizationPolicy here is ingress-only and ztunnel reports no
 * principal for an outside caller.
 */
public final class AllowListLearner {

  /** What learning one flow did. */
  public sealed interface Outcome {}

  /** The flow taught nothing, for this reason (a metric tag). */
  public record Skipped(String reason) implements Outcome {}

  /** The reason of a flow from a new peer of a target that has {@link #MAX_PEERS} already. */
  public static final String TOO_MANY_PEERS = "too-many-peers";

  /**
   * The new state; {@code allowListChanged} when a peer, a port or the own selector is new (a new
   * proposal must be emitted), otherwise {@code state} is the current one and only evidence moves.
   * The flow's evidence belongs to {@code peerKey}/{@code portKey}; the evidence of {@code
   * widenedPeers} on {@code portKey} moves there too (their port was widened into {@code peerKey}).
   */
  public record Learned(
      LearnedAllowList state,
      boolean allowListChanged,
      String peerKey,
      String portKey,
      boolean peerEvidenceChanged,
      List<String> widenedPeers,
      String relabeledPeer,
      List<String> relabeledPorts)
      implements Outcome {

    public Learned {
      widenedPeers = widenedPeers == null ? List.of() : List.copyOf(widenedPeers);
      relabeledPorts = relabeledPorts == null ? List.of() : List.copyOf(relabeledPorts);
    }

    public Learned(
        LearnedAllowList state,
        boolean allowListChanged,
        String peerKey,
        String portKey,
        boolean peerEvidenceChanged,
        List<String> widenedPeers) {
      this(
          state,
          allowListChanged,
          peerKey,
          portKey,
          peerEvidenceChanged,
          widenedPeers,
          null,
          List.of());
    }

    public Learned(
        LearnedAllowList state, boolean allowListChanged, String peerKey, String portKey) {
      this(state, allowListChanged, peerKey, portKey, false, List.of());
    }
  }

  /** The reason an Istio flow from a peer known only by labels teaches nothing. */
  public static final String PEER_KNOWN_BY_LABELS = "peer-known-by-labels";

  /**
   * The most peers one target learns; a flow from a new peer beyond is counted as not learned
   * ({@code too-many-peers}). A proposal carries every peer with its evidence, about 360 bytes
   * each: with 30,000 clients of one server its record outgrew the broker's default 1 MiB message
   * (after lz4) and stopped the stream thread. 10,000 peers make a proposal of about 3.6 MB, half a
   * MiB compressed; the API server stores at most about 3,000 (the writer reports the rest as
   * TooLarge).
   */
  public static final int MAX_PEERS = 10_000;

  private final Backend backend;
  private final ExternalPeerRule externalPeers;
  private final int maxPeers;

  /** Cilium backend with L7 HTTP learning: ingress ports learn the requests seen on them. */
  private final boolean l7Http;

  public AllowListLearner(Backend backend) {
    this(backend, LearningSettings.DEFAULTS);
  }

  public AllowListLearner(Backend backend, LearningSettings settings) {
    this(backend, settings, MAX_PEERS);
  }

  AllowListLearner(Backend backend, LearningSettings settings, int maxPeers) {
    this.backend = backend;
    this.externalPeers = new ExternalPeerRule(settings);
    this.maxPeers = maxPeers;
    this.l7Http = backend == Backend.cilium && settings.l7Http();
  }

  /**
   * Learns one flow. The allow-list given is taken over: a new peer or port is added to its peers
   * in place, and the state returned (which holds them) replaces it. Nothing else may keep using
   * it.
   */
  public Outcome learn(LearnedAllowList current, TargetKey target, FlowRecord flow) {
    if (flow.dstPort() == 0) {
      return new Skipped("unknown-port");
    }
    return backend == Backend.istio
        ? learnIstio(current, flow)
        : learnKubernetes(current, target, flow);
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
    if (peer.isExternal()) {
      return learnOutside(
          current, own.workloadSelector(), own.inferred(), peer, flow, route(ingress, flow));
    }
    // A workload, a Job without a CronJob that opted in as a peer (ns/Job/<name>), or pods known
    // only by their labels (ns/Labels/<k=v,...>).
    Optional<String> peerKey =
        peer.workload().map(WorkloadRef::key).or(peer::jobPeerKey).or(peer::labelPeerKey);
    if (peerKey.isEmpty()) {
      return new Skipped("peer-not-a-workload");
    }
    if (peer.workloadSelector() == null) {
      return new Skipped("no-peer-selector");
    }
    String key = peerKey.get();
    boolean peerInferred = peer.inferred();
    LearnedPeer relabeled = null;
    String relabeledKey = null;
    if (peer.labelsOnly() && current != null && !current.peers().containsKey(key)) {
      // The same pods already learned as a workload: its rule allows them, no second rule.
      Optional<Map.Entry<String, LearnedPeer>> sameWorkload =
          sameSelectorWorkload(current, peer.namespace(), peer.workloadSelector());
      if (sameWorkload.isPresent()) {
        key = sameWorkload.get().getKey();
        peerInferred = sameWorkload.get().getValue().inferred();
      }
    } else if (peer.workload().isPresent()
        && current != null
        && !current.peers().containsKey(key)
        && onlyMatchLabels(peer.workloadSelector())) {
      // A workload whose pods were learned by their labels before: the label-only rule becomes
      // this workload's (same pods, same ports), its evidence moves with it.
      relabeledKey =
          FlowEndpoint.labelPeerKey(peer.namespace(), peer.workloadSelector().getMatchLabels());
      relabeled = current.peers().get(relabeledKey);
      if (relabeled != null && Objects.equals(relabeled.namespace(), peer.namespace())) {
        current.peers().remove(relabeledKey);
        current
            .peers()
            .put(
                key,
                new LearnedPeer(
                    peer.namespace(), peer.workloadSelector(), relabeled.ports(), peerInferred));
      } else {
        relabeled = null;
      }
    }
    Outcome merged =
        merge(
            current,
            own.workloadSelector(),
            own.inferred(),
            key,
            peer.namespace(),
            peer.workloadSelector(),
            peerInferred,
            null,
            flow,
            route(ingress, flow));
    if (relabeled == null || !(merged instanceof Learned learned)) {
      return merged;
    }
    return new Learned(
        learned.state(),
        true,
        learned.peerKey(),
        learned.portKey(),
        learned.peerEvidenceChanged(),
        learned.widenedPeers(),
        relabeledKey,
        new ArrayList<>(relabeled.ports().keySet()));
  }

  private static boolean onlyMatchLabels(LabelSelector selector) {
    return selector.getMatchLabels() != null
        && !selector.getMatchLabels().isEmpty()
        && (selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty());
  }

  /**
   * A workload peer (not a label-only one) of this namespace whose selector equals {@code
   * selector}: it selects the same pods. A scan: it runs only for the first flow of a label-only
   * peer not learned yet.
   */
  private static Optional<Map.Entry<String, LearnedPeer>> sameSelectorWorkload(
      LearnedAllowList current, String namespace, LabelSelector selector) {
    LabelSelector sorted = SortedSelector.of(selector);
    for (Map.Entry<String, LearnedPeer> e : current.peers().entrySet()) {
      LearnedPeer p = e.getValue();
      if (!FlowEndpoint.isLabelPeerKey(e.getKey())
          && namespace.equals(p.namespace())
          && Objects.equals(sorted, p.selector())) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /**
   * The HTTP request to learn on the flow's port, with L7 HTTP learning on: on ingress any request
   * Cilium's proxy saw; on egress only one the source's own proxy saw (an egress L7 policy or
   * visibility there already). A request seen only at the server's proxy leaves the client's egress
   * at L3/L4: an HTTP rule would send the client's traffic through its node's proxy, which it does
   * not pass today. Null otherwise.
   */
  private String route(boolean ingress, FlowRecord flow) {
    return l7Http && flow.http() != null && (ingress || flow.reporter() == Reporter.SOURCE)
        ? LearnedPort.route(flow.http())
        : null;
  }

  /**
   * A peer outside the cluster becomes an ipBlock peer; the DNS names the data plane reported are
   * kept on it as evidence (a new name is no allow-list change, only evidence).
   *
   * <p>A port that more than {@link ExternalPeerRule#widenAbove()} addresses use is widened: its
   * address peers lose it (a peer left without ports goes), the widened peer gains it with their
   * DNS names, and later addresses on it are learned as the widened peer. One rule then says "any
   * outside client of this port", as a reviewer would write it, instead of one per visitor; on
   * egress the same holds for the many addresses behind one name (a cloud API, a CDN).
   */
  private Outcome learnOutside(
      LearnedAllowList current,
      LabelSelector ownSelector,
      boolean ownInferred,
      FlowEndpoint peer,
      FlowRecord flow,
      String route) {
    ExternalPeerRule.Peer outside = externalPeers.peerFor(peer);
    if (outside.skipReason() != null) {
      return new Skipped(outside.skipReason());
    }
    List<String> names = peer.external().dnsNames();
    List<String> folded = List.of();
    boolean byName =
        backend == Backend.cilium
            && !names.isEmpty()
            && !ExternalPeerRule.OUTSIDE_KEY.equals(outside.key());
    if (byName) {
      // Cilium allows it by name: one peer per set of names, whatever address the name has now,
      // so a cloud API's changing addresses are no new peer and never widened. It keeps the
      // address it was first seen at (the ipBlocks mark it as outside the cluster).
      String key = ExternalPeerRule.NAMES_PREFIX + String.join(",", names);
      LearnedPeer known = current == null ? null : current.peers().get(key);
      outside =
          new ExternalPeerRule.Peer(
              key, known != null ? known.ipBlocks() : outside.ipBlocks(), null);
    }
    if (current != null && !byName && !ExternalPeerRule.OUTSIDE_KEY.equals(outside.key())) {
      String portKey = new LearnedPort(flow.protocol(), flow.dstPort()).key();
      LearnedPeer known = current.peers().get(outside.key());
      LearnedPeer widened = current.peers().get(ExternalPeerRule.OUTSIDE_KEY);
      if (widened != null && widened.ports().containsKey(portKey)) {
        outside = externalPeers.widened();
      } else if (known == null || !known.ports().containsKey(portKey)) {
        List<String> sharing = addressPeersOn(current, portKey);
        if (sharing.size() >= externalPeers.widenAbove()) {
          if (widened == null
              && current.peers().size() - leftWithoutPorts(current, sharing, portKey) >= maxPeers) {
            return new Skipped(TOO_MANY_PEERS);
          }
          folded = sharing;
          names = foldPort(current, sharing, portKey, names);
          outside = externalPeers.widened();
        }
      }
    }
    Outcome merged =
        merge(
            current,
            ownSelector,
            ownInferred,
            outside.key(),
            null,
            null,
            false,
            outside.ipBlocks(),
            flow,
            route);
    if (!(merged instanceof Learned learned)) {
      return merged;
    }
    if (!folded.isEmpty()) {
      learned =
          new Learned(
              learned.state(),
              true,
              learned.peerKey(),
              learned.portKey(),
              learned.peerEvidenceChanged(),
              folded);
    }
    LearnedPeer learnedPeer = learned.state().peers().get(outside.key());
    if (names.isEmpty() || learnedPeer.dnsNames().containsAll(names)) {
      return learned;
    }
    SortedSet<String> allNames = new TreeSet<>(learnedPeer.dnsNames());
    allNames.addAll(names);
    SortedMap<String, LearnedPeer> peers = learned.state().peers();
    peers.put(
        outside.key(),
        new LearnedPeer(null, null, learnedPeer.ports(), learnedPeer.ipBlocks(), allNames));
    LearnedAllowList s = learned.state();
    return new Learned(
        new LearnedAllowList(
            s.backend(),
            s.ownSelector(),
            peers,
            s.evidenceDirty(),
            s.lastChange(),
            s.converged(),
            s.ownInferred()),
        learned.allowListChanged(),
        learned.peerKey(),
        learned.portKey(),
        true,
        learned.widenedPeers());
  }

  /**
   * The per-address peers (every outside peer but the widened one and the cilium backend's peers by
   * name) that have this port.
   */
  private static List<String> addressPeersOn(LearnedAllowList current, String portKey) {
    List<String> sharing = new ArrayList<>();
    current
        .peers()
        .forEach(
            (key, p) -> {
              if (p.outsideCluster()
                  && !ExternalPeerRule.OUTSIDE_KEY.equals(key)
                  && !key.startsWith(ExternalPeerRule.NAMES_PREFIX)
                  && p.ports().containsKey(portKey)) {
                sharing.add(key);
              }
            });
    return sharing;
  }

  private static int leftWithoutPorts(
      LearnedAllowList current, List<String> sharing, String portKey) {
    int gone = 0;
    for (String key : sharing) {
      if (current.peers().get(key).ports().size() == 1) {
        gone++;
      }
    }
    return gone;
  }

  /**
   * Takes the port from the address peers sharing it (in place, see {@link #learn}); returns the
   * DNS names they and the flow carry, the evidence the widened rule keeps.
   */
  private static List<String> foldPort(
      LearnedAllowList current, List<String> sharing, String portKey, List<String> flowNames) {
    SortedSet<String> names = new TreeSet<>(flowNames);
    SortedMap<String, LearnedPeer> peers = current.peers();
    for (String key : sharing) {
      LearnedPeer p = peers.get(key);
      names.addAll(p.dnsNames());
      SortedMap<String, LearnedPort> ports = new TreeMap<>(p.ports());
      ports.remove(portKey);
      if (ports.isEmpty()) {
        peers.remove(key);
      } else {
        peers.put(key, new LearnedPeer(null, null, ports, p.ipBlocks(), p.dnsNames()));
      }
    }
    return new ArrayList<>(names);
  }

  private Outcome learnIstio(LearnedAllowList current, FlowRecord flow) {
    if (flow.protocol() != Protocol.TCP) {
      return new Skipped("istio-not-tcp");
    }
    Optional<String> principal = flow.src().principal();
    if (principal.isEmpty() && flow.src().labelsOnly()) {
      // An AuthorizationPolicy names principals; labels name no identity a rule could allow.
      return new Skipped(PEER_KNOWN_BY_LABELS);
    }
    if (principal.isEmpty()) {
      return new Skipped("no-source-identity");
    }
    if (flow.dst().workloadSelector() == null) {
      return new Skipped("no-own-selector");
    }
    return merge(
        current,
        flow.dst().workloadSelector(),
        flow.dst().inferred(),
        principal.get(),
        null,
        null,
        false,
        null,
        flow,
        null);
  }

  /**
   * @param route an HTTP request to learn on the port ({@link LearnedPort#route}), or null
   */
  private Outcome merge(
      LearnedAllowList current,
      LabelSelector ownSelector,
      boolean ownInferred,
      String peerKey,
      String peerNamespace,
      LabelSelector peerSelector,
      boolean peerInferred,
      List<LearnedIpBlock> ipBlocks,
      FlowRecord flow,
      String route) {
    List<LearnedIpBlock> blocks = ipBlocks == null ? List.of() : ipBlocks;
    LearnedPort port = new LearnedPort(flow.protocol(), flow.dstPort());
    String portKey = port.key();
    // The hot path: a known port of a known peer changes nothing and copies nothing.
    if (current != null
        && Objects.equals(current.ownSelector(), ownSelector)
        && current.ownInferred() == ownInferred) {
      LearnedPeer known = current.peers().get(peerKey);
      if (known != null
          && Objects.equals(known.namespace(), peerNamespace)
          && Objects.equals(known.selector(), peerSelector)
          && known.ipBlocks().equals(blocks)
          && known.inferred() == peerInferred
          && known.ports().containsKey(portKey)
          && (route == null || !known.ports().get(portKey).wouldLearn(route))) {
        return new Learned(current, false, peerKey, portKey);
      }
    }
    // The given allow-list is updated in place and replaced by the one returned (see
    // LearnedAllowList).
    SortedMap<String, LearnedPeer> peers = current == null ? new TreeMap<>() : current.peers();
    LearnedPeer peer = peers.get(peerKey);
    if (peer == null && peers.size() >= maxPeers) {
      return new Skipped(TOO_MANY_PEERS);
    }
    // New peer, or the peer workload was recreated with another selector: the rule changes.
    SortedMap<String, LearnedPort> ports =
        peer == null ? new TreeMap<>() : new TreeMap<>(peer.ports());
    // Kept keys: one copy each across all targets (a workload is the peer of every target it talks
    // to).
    LearnedPort before = ports.get(portKey);
    boolean newRoute = route != null && (before == null || before.wouldLearn(route));
    if (before != null) {
      port = before; // keeps the requests learned on it
    }
    if (route != null) {
      port = port.withRoute(route, LearningSettings.MAX_HTTP_RULES_PER_PORT);
    }
    ports.put(portKey.intern(), port);
    // The inferred marks follow the latest flow: a workload the cluster later confirms loses its
    // mark.
    peers.put(
        peerKey.intern(),
        new LearnedPeer(
            peerNamespace,
            peerSelector,
            ports,
            blocks,
            peer == null ? null : peer.dnsNames(),
            peerInferred));
    boolean dirty = current != null && current.evidenceDirty();
    // Only an inferred mark changed (the cluster now names a workload): nothing new was seen.
    boolean onlyMarks =
        current != null
            && peer != null
            && Objects.equals(current.ownSelector(), ownSelector)
            && Objects.equals(peer.namespace(), peerNamespace)
            && Objects.equals(peer.selector(), peerSelector)
            && peer.ipBlocks().equals(blocks)
            && peer.ports().containsKey(portKey)
            && !newRoute;
    if (onlyMarks) {
      return new Learned(
          new LearnedAllowList(
              backend,
              ownSelector,
              peers,
              dirty,
              current.lastChange(),
              current.converged(),
              ownInferred),
          true,
          peerKey,
          portKey);
    }
    // Convergence restarts at the flow that brought something new (flow time, not arrival time).
    Instant lastChange =
        current == null || current.lastChange() == null || flow.time().isAfter(current.lastChange())
            ? flow.time()
            : current.lastChange();
    return new Learned(
        new LearnedAllowList(backend, ownSelector, peers, dirty, lastChange, false, ownInferred),
        true,
        peerKey,
        portKey);
  }
}
