package io.kubewarden.networkenforcer.cli.diff;

import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A proposal against the policy of the same target, in connectivity terms: which peers and ports
 * the proposal would add to what the policy allows, and which it would remove. A target with only a
 * proposal adds everything the proposal allows; one with only a policy removes everything.
 *
 * @param proposal {@code null} when the target has a policy and no proposal
 * @param policy {@code null} when the target has a proposal and no policy
 * @param pods {@code null} when both apply to the same pods, else {@code policy -> proposal}
 * @param added peer -> ports the proposal allows and the policy does not
 * @param removed peer -> ports the policy allows and the proposal does not
 * @param unchanged (peer, port) pairs both allow
 */
record ConnectivityDiff(
    String target,
    Direction direction,
    String proposal,
    String policy,
    String pods,
    List<PeerPorts> added,
    List<PeerPorts> removed,
    int unchanged) {

  /** One peer with its ports, sorted. */
  record PeerPorts(String peer, List<String> ports) {}

  boolean changed() {
    return proposal == null
        || policy == null
        || pods != null
        || !added.isEmpty()
        || !removed.isEmpty();
  }

  static ConnectivityDiff of(WorkloadPolicies.Named proposal, WorkloadPolicies.Named policy) {
    Connectivity p = Connectivity.of(proposal.spec());
    Connectivity q = Connectivity.of(policy.spec());
    return of(proposal, policy, p, q);
  }

  /** A target with a proposal and no policy: everything the proposal allows is added. */
  static ConnectivityDiff onlyProposal(WorkloadPolicies.Named proposal) {
    Connectivity p = Connectivity.of(proposal.spec());
    return new ConnectivityDiff(
        proposal.target().key(),
        proposal.direction(),
        proposal.label(),
        null,
        null,
        byPeer(p.grants()),
        List.of(),
        0);
  }

  /** A target with a policy and no proposal: everything the policy allows is removed. */
  static ConnectivityDiff onlyPolicy(WorkloadPolicies.Named policy) {
    Connectivity q = Connectivity.of(policy.spec());
    return new ConnectivityDiff(
        policy.target().key(),
        policy.direction(),
        null,
        policy.label(),
        null,
        List.of(),
        byPeer(q.grants()),
        0);
  }

  private static ConnectivityDiff of(
      WorkloadPolicies.Named proposal,
      WorkloadPolicies.Named policy,
      Connectivity p,
      Connectivity q) {
    SortedSet<Connectivity.Grant> added = new TreeSet<>(p.grants());
    added.removeAll(q.grants());
    SortedSet<Connectivity.Grant> removed = new TreeSet<>(q.grants());
    removed.removeAll(p.grants());
    int unchanged = p.grants().size() - added.size();
    String pods = p.pods().equals(q.pods()) ? null : q.pods() + " -> " + p.pods();
    return new ConnectivityDiff(
        proposal.target().key(),
        proposal.direction(),
        proposal.label(),
        policy.label(),
        pods,
        byPeer(added),
        byPeer(removed),
        unchanged);
  }

  private static List<PeerPorts> byPeer(SortedSet<Connectivity.Grant> grants) {
    Map<String, List<String>> peers = new TreeMap<>();
    grants.forEach(g -> peers.computeIfAbsent(g.peer(), k -> new ArrayList<>()).add(g.port()));
    List<PeerPorts> out = new ArrayList<>();
    peers.forEach((peer, ports) -> out.add(new PeerPorts(peer, List.copyOf(ports))));
    return out;
  }
}
