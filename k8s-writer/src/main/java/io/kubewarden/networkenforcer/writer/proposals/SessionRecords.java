package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this leader session knows per proposal that neither the informer cache nor the topic shows
 * (yet): kept apart from the reconciler, which keeps nothing between calls, and dropped with the
 * session. Each entry is a shortcut or a once-only report; losing them in a hand-over costs one
 * more write or one more report, never a wrong object.
 */
final class SessionRecords {
  /**
   * The processor's record last written to each proposal's status. A reconcile without a new record
   * (an informer event, a loss, the end of a hold) writes the status from it, not from the cache,
   * which may not show that write yet (it would take the evidence and Converged back).
   */
  private final Map<ObjectKey, ProposalSnapshot> lastApplied = new ConcurrentHashMap<>();

  /**
   * Proposals the API server refused as too large, with the rules of the refused record: a later
   * record of as many rules or more is not tried (the learned allow-list of a target only grows
   * until a reset).
   */
  private final Map<ObjectKey, Integer> tooLargeFrom = new ConcurrentHashMap<>();

  /** Proposals never created, with the reason of the refusal reported on their workload. */
  private final Map<ObjectKey, String> reportedOnWorkload = new ConcurrentHashMap<>();

  /** Since when a proposal record has waited for its workload to be cached. */
  private final Map<ObjectKey, Instant> awaitingWorkload = new ConcurrentHashMap<>();

  Optional<ProposalSnapshot> lastApplied(ObjectKey key) {
    return Optional.ofNullable(lastApplied.get(key));
  }

  /**
   * The evidence to keep when there is no new record: what we wrote last, else what the cluster
   * has.
   */
  List<RuleEvidence> keptEvidence(ObjectKey key, WorkloadNetworkPolicyProposal live) {
    ProposalSnapshot written = lastApplied.get(key);
    if (written != null) {
      return new ArrayList<>(written.evidence());
    }
    return live == null || live.getStatus() == null
        ? new ArrayList<>()
        : live.getStatus().getEvidence();
  }

  /** A record fitted (a reset made the allow-list small again): later ones are tried again. */
  void applied(ObjectKey key, ProposalSnapshot snapshot) {
    tooLargeFrom.remove(key);
    lastApplied.put(key, snapshot);
  }

  /** The proposal is gone or reset: nothing written for it counts any more. */
  void forgetApplied(ObjectKey key) {
    lastApplied.remove(key);
  }

  void refusedTooLarge(ObjectKey key, int rules) {
    tooLargeFrom.put(key, rules);
  }

  void reset(ObjectKey key) {
    tooLargeFrom.remove(key);
  }

  /** The rule count refused as too large, if a record of this key was. */
  Optional<Integer> tooLargeFrom(ObjectKey key) {
    return Optional.ofNullable(tooLargeFrom.get(key));
  }

  /**
   * Whether this is the first report of {@code reason} on the workload of a never created proposal.
   */
  boolean firstReportOnWorkload(ObjectKey key, String reason) {
    return !reason.equals(reportedOnWorkload.put(key, reason));
  }

  void created(ObjectKey key) {
    reportedOnWorkload.remove(key);
  }

  /** Since when the record of this key waits for its workload; starts now on the first call. */
  Instant awaitingWorkloadSince(ObjectKey key, Instant now) {
    return awaitingWorkload.computeIfAbsent(key, k -> now);
  }

  void workloadSeen(ObjectKey key) {
    awaitingWorkload.remove(key);
  }
}
