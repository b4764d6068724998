package io.kubewarden.networkenforcer.processor.learning;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.flow.Counts;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Sighting;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Renders a learned allow-list as the complete proposal in the exact CRD shape, plus its evidence.
 * Rules follow the peers' key order and ports follow protocol then number, so equal allow-lists
 * always give equal bytes.
 */
public final class ProposalRenderer {

  private ProposalRenderer() {}

  /** The evidence's {@code peerKnownBy} of a peer known only by its labels. */
  public static final String PEER_KNOWN_BY_LABELS = "labels";

  /** Where the renderer finds the evidence of one port of one peer (null when there is none). */
  @FunctionalInterface
  public interface EvidenceLookup {
    PortStats find(String peerKey, String portKey);
  }

  public static ProposalSnapshot render(
      TargetKey target, LearnedAllowList state, EvidenceLookup evidence) {
    return render(target, state, evidence, null, null, false);
  }

  /**
   * Renders the proposal; with a convergence rule, also its {@code Converged} condition as of
   * {@code now} (the latest flow time the caller has seen; the proposal's own latest flow when
   * null). {@code ciliumEntities}: see {@link
   * io.kubewarden.networkenforcer.processor.config.LearningSettings#ciliumEntities()}.
   */
  public static ProposalSnapshot render(
      TargetKey target,
      LearnedAllowList state,
      EvidenceLookup evidence,
      ConvergenceRule convergence,
      Instant now,
      boolean ciliumEntities) {
    WorkloadNetworkPolicyProposalSpec spec = new WorkloadNetworkPolicyProposalSpec();
    spec.setBackend(state.backend());
    spec.setTargetRef(new TargetRef(target.workload().kind(), target.workload().name()));
    spec.setDirection(target.direction());
    Map<String, Integer> ruleOfPeer = null; // null: rule i is peer i
    if (state.backend() == Backend.istio) {
      spec.setIstio(istio(state));
    } else if (state.backend() == Backend.cilium) {
      CiliumRendering.Rendered cilium =
          CiliumRendering.render(target.direction(), state, ciliumEntities);
      spec.setCilium(cilium.policy());
      ruleOfPeer = cilium.ruleOfPeer();
    } else {
      spec.setKubernetes(kubernetes(target.direction(), state));
    }
    List<RuleEvidence> rules = new ArrayList<>();
    Instant lastSeen = null;
    Instant lastNew = null;
    long observations = 0;
    int index = 0;
    for (Map.Entry<String, LearnedPeer> peer : state.peers().entrySet()) {
      List<PortEvidence> ports = new ArrayList<>();
      Instant ruleFirst = null;
      Instant ruleLast = null;
      long ruleCount = 0;
      for (Map.Entry<String, LearnedPort> port : peer.getValue().ports().entrySet()) {
        PortStats stats = evidence.find(peer.getKey(), port.getKey());
        if (stats == null) {
          continue;
        }
        PortEvidence portEvidence =
            new PortEvidence(
                stats.protocol().name(),
                Integer.toString(stats.port()),
                DateTimeFormatter.ISO_INSTANT.format(stats.firstSeen()),
                DateTimeFormatter.ISO_INSTANT.format(stats.lastSeen()),
                stats.count());
        portEvidence.setSeenAs(seenAs(stats));
        ports.add(portEvidence);
        lastSeen = latest(lastSeen, stats.lastSeen());
        lastNew = latest(lastNew, stats.firstSeen());
        ruleFirst =
            ruleFirst == null || stats.firstSeen().isBefore(ruleFirst)
                ? stats.firstSeen()
                : ruleFirst;
        ruleLast = latest(ruleLast, stats.lastSeen());
        ruleCount = Counts.sum(ruleCount, stats.count());
      }
      int ruleIndex = ruleOfPeer == null ? index : ruleOfPeer.get(peer.getKey());
      index++;
      RuleEvidence rule = new RuleEvidence(ruleIndex, peer.getKey(), ports);
      rule.setFirstSeen(ruleFirst == null ? null : DateTimeFormatter.ISO_INSTANT.format(ruleFirst));
      rule.setLastSeen(ruleLast == null ? null : DateTimeFormatter.ISO_INSTANT.format(ruleLast));
      rule.setCount(ruleCount);
      if (!peer.getValue().dnsNames().isEmpty()) {
        rule.setDnsNames(new ArrayList<>(peer.getValue().dnsNames()));
      }
      if (FlowEndpoint.isLabelPeerKey(peer.getKey())) {
        rule.setPeerKnownBy(PEER_KNOWN_BY_LABELS);
      }
      observations = Counts.sum(observations, ruleCount);
      rules.add(rule);
    }
    Convergence converged = null;
    if (convergence != null && lastSeen != null) {
      // The latest first-seen is when the newest peer or port appeared, whatever order flows came
      // in.
      converged = convergence.evaluate(lastNew, latest(now, lastSeen), observations);
    }
    // updatedAt is the latest flow time, not the wall clock: equal inputs give equal bytes.
    return new ProposalSnapshot(
        target.objectName(),
        target.namespace(),
        spec,
        rules,
        lastSeen,
        inferredWorkloads(target, state),
        Map.of(),
        converged);
  }

  private static Instant latest(Instant a, Instant b) {
    return a == null || (b != null && b.isAfter(a)) ? b : a;
  }

  /**
   * The target and peer workloads whose selectors were inferred, target first, peers in rule order.
   */
  private static List<String> inferredWorkloads(TargetKey target, LearnedAllowList state) {
    List<String> inferred = new ArrayList<>();
    if (state.ownInferred()) {
      inferred.add(target.workload().key());
    }
    state
        .peers()
        .forEach(
            (key, peer) -> {
              if (peer.inferred()) {
                inferred.add(key);
              }
            });
    return inferred;
  }

  private static NetworkPolicySpec kubernetes(Direction direction, LearnedAllowList state) {
    NetworkPolicySpecBuilder spec =
        new NetworkPolicySpecBuilder()
            .withPodSelector(copy(state.ownSelector()))
            .withPolicyTypes(direction.name());
    for (LearnedPeer peer : state.peers().values()) {
      List<NetworkPolicyPeer> from = new ArrayList<>();
      if (peer.outsideCluster()) {
        for (LearnedIpBlock block : peer.ipBlocks()) {
          from.add(
              new NetworkPolicyPeerBuilder()
                  .withNewIpBlock()
                  .withCidr(block.cidr())
                  .withExcept(block.except().isEmpty() ? null : new ArrayList<>(block.except()))
                  .endIpBlock()
                  .build());
        }
      } else {
        from.add(
            new NetworkPolicyPeerBuilder()
                .withNamespaceSelector(
                    new LabelSelectorBuilder()
                        .withMatchLabels(Map.of(Labels.NAMESPACE_NAME, peer.namespace()))
                        .build())
                .withPodSelector(copy(peer.selector()))
                .build());
      }
      List<NetworkPolicyPort> ports = new ArrayList<>();
      for (LearnedPort p : peer.ports().values()) {
        ports.add(
            new NetworkPolicyPortBuilder()
                .withProtocol(p.protocol().name())
                .withPort(new IntOrString(p.port()))
                .build());
      }
      if (direction == Direction.Ingress) {
        spec.addToIngress(
            new NetworkPolicyIngressRuleBuilder().withFrom(from).withPorts(ports).build());
      } else {
        spec.addToEgress(
            new NetworkPolicyEgressRuleBuilder().withTo(from).withPorts(ports).build());
      }
    }
    return spec.build();
  }

  private static IstioPolicy istio(LearnedAllowList state) {
    List<IstioPolicy.Rule> rules = new ArrayList<>();
    state
        .peers()
        .forEach(
            (principal, peer) -> {
              List<String> ports = new ArrayList<>();
              for (LearnedPort p : peer.ports().values()) {
                ports.add(Integer.toString(p.port()));
              }
              rules.add(IstioPolicy.Rule.of(List.of(principal), ports));
            });
    return new IstioPolicy(copy(state.ownSelector()), rules);
  }

  private static LabelSelector copy(LabelSelector selector) {
    return selector == null ? null : new LabelSelectorBuilder(selector).build();
  }

  /** The port's marks in {@link Sighting} order (equal sets give equal bytes); null for none. */
  private static List<String> seenAs(PortStats stats) {
    if (stats.seenAs().isEmpty()) {
      return null;
    }
    List<String> labels = new ArrayList<>(stats.seenAs().size());
    for (Sighting mark : Sighting.values()) {
      if (stats.seenAs().contains(mark)) {
        labels.add(mark.label());
      }
    }
    return labels;
  }
}
