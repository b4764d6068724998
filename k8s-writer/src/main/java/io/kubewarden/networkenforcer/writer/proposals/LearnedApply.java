package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.conditions.ProposalConditions;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.PermanentError;
import io.kubewarden.networkenforcer.writer.reconcile.Result;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of a proposal's reconcile, once its workload is cached: the learned record (if any)
 * applied when the object needs it ({@link DesiredProposal}), then the status ({@link
 * ProposalStatus}). A record refused as too large parks later records of as many rules or more.
 */
final class LearnedApply {
  private static final Logger LOG = LoggerFactory.getLogger(LearnedApply.class);

  private final ClusterWriter writer;
  private final DesiredProposals desired;
  private final ProposalStatus status;
  private final SessionRecords session;
  private final MeterRegistry meters;

  LearnedApply(
      ClusterWriter writer,
      DesiredProposals desired,
      ProposalStatus status,
      SessionRecords session,
      MeterRegistry meters) {
    this.writer = writer;
    this.desired = desired;
    this.status = status;
    this.session = session;
    this.meters = meters;
  }

  Result apply(
      ObjectKey key,
      WorkloadNetworkPolicyProposal live,
      DesiredProposals.Desired wish,
      HasMetadata workload,
      Condition ready) {
    if (wish == null && live != null && ProposalStatus.refusedAsItIs(live)) {
      // The API server refused this very generation for good: wait for the object or the topic to
      // change.
      return Result.done();
    }
    ProposalSnapshot snapshot = wish == null ? null : wish.snapshot();
    if (snapshot != null && stillTooLarge(key, snapshot)) {
      // Learned specs only grow: this one cannot fit either. Reported once, parked once.
      LOG.debug(
          "proposal {}: {} rules, refused as too large from {} on; not applied",
          key,
          DesiredProposal.ruleCount(snapshot.spec()),
          session.tooLargeFrom(key).orElse(null));
      count("skipped_too_large");
      done(key, wish);
      return Result.done();
    }
    boolean needsApply = DesiredProposal.needsApply(key, live, snapshot, workload);
    try {
      apply(key, live, snapshot, workload, needsApply, ready);
    } catch (PermanentError e) {
      if (snapshot != null && ProposalConditions.REASON_TOO_LARGE.equals(e.reason())) {
        session.refusedTooLarge(key, DesiredProposal.ruleCount(snapshot.spec()));
      }
      throw e;
    }
    if (snapshot != null) {
      session.applied(key, snapshot);
    }
    count(needsApply ? "applied" : "unchanged");
    done(key, wish);
    return Result.done();
  }

  /**
   * The object when it needs it, then the status (from the record, else from what was written
   * last).
   */
  private void apply(
      ObjectKey key,
      WorkloadNetworkPolicyProposal live,
      ProposalSnapshot snapshot,
      HasMetadata workload,
      boolean needsApply,
      Condition ready) {
    long generation = ProposalReconciler.generation(live);
    if (needsApply) {
      WorkloadNetworkPolicyProposal applied =
          ProposalRefusals.refused(
              () -> writer.apply(DesiredProposal.of(key, live, snapshot, workload)));
      generation =
          applied == null || applied.getMetadata().getGeneration() == null
              ? generation
              : applied.getMetadata().getGeneration();
      session.created(key);
    }
    ProposalSnapshot statusFrom =
        snapshot != null ? snapshot : session.lastApplied(key).orElse(null);
    List<RuleEvidence> evidence =
        snapshot != null ? new ArrayList<>(snapshot.evidence()) : session.keptEvidence(key, live);
    status.write(
        key,
        live,
        evidence,
        ready,
        statusFrom == null ? null : statusFrom.convergence(),
        generation);
  }

  private boolean stillTooLarge(ObjectKey key, ProposalSnapshot snapshot) {
    return session
        .tooLargeFrom(key)
        .filter(rules -> DesiredProposal.ruleCount(snapshot.spec()) >= rules)
        .isPresent();
  }

  private void done(ObjectKey key, DesiredProposals.Desired wish) {
    if (wish != null) {
      desired.done(key, wish);
    }
  }

  private void count(String outcome) {
    meters.counter("network.enforcer.writer.proposals", "outcome", outcome).increment();
  }
}
