package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.policies.PolicyPublisher;
import io.kubewarden.networkenforcer.writer.promotion.Promoter;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectEvents;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.PermanentError;
import io.kubewarden.networkenforcer.writer.reconcile.Reconciler;
import io.kubewarden.networkenforcer.writer.reconcile.Result;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciler of one WorkloadNetworkPolicyProposal ({@code ns/name}). Desired state: the latest
 * record of the proposals topic for it (if one is unapplied, {@link DesiredProposals}), the
 * policies of its target, its promote label. Observed state: the informer caches (proposal,
 * policies, workloads). In that order, it
 *
 * <ul>
 *   <li>deletes a proposal the topic reset, and a leftover whose target has a policy;
 *   <li>promotes (see {@link Promoter}); a name clash keeps the proposal and sets {@code
 *       Ready=False};
 *   <li>applies what was learned ({@link DesiredProposal}: the spec with a reviewer's edits kept,
 *       the owner reference to the workload from the cache, a missing one repaired);
 *   <li>writes the status ({@link ProposalStatus}) when it changed;
 *   <li>tells a person's delete from its own from the cluster ({@link WhoDeleted}).
 * </ul>
 *
 * A refusal the API server will repeat is a {@link PermanentError} ({@link ProposalRefusals}): the
 * record goes to the dead-letter topic, the proposal gets {@code Ready=False} and an Event, and no
 * other proposal waits for it. It keeps nothing between calls; what the session knows beyond the
 * cluster and the topic is in {@link SessionRecords}.
 */
public final class ProposalReconciler implements Reconciler<ObjectKey> {
  private static final Logger LOG = LoggerFactory.getLogger(ProposalReconciler.class);

  /**
   * Ours: the learned spec the writer applied last, so it can tell a reviewer's edits from
   * learning.
   */
  public static final String LEARNED_SPEC = DesiredProposal.LEARNED_SPEC;

  /**
   * How long a proposal record waits for its workload to reach the informer cache: the workload of
   * a new CronJob or Deployment can be created a moment before its first flows are learned, and the
   * writer's watch may see it later than the processor's record arrives.
   */
  static final Duration WORKLOAD_GRACE = Duration.ofMinutes(2);

  static final Duration WORKLOAD_RECHECK = Duration.ofSeconds(2);

  private final ClusterCache cache;
  private final ClusterWriter writer;
  private final DesiredProposals desired;
  private final Promoter promoter;
  private final DeadLetters deadLetters;
  private final ObjectEvents events;
  private final MeterRegistry meters;
  private final Clock clock;
  private final ProposalStatus status;
  private final WhoDeleted whoDeleted;
  private final SessionRecords session = new SessionRecords();

  /**
   * @param losses the data plane's loss, which holds {@code Converged} false; null when not
   *     followed
   */
  public ProposalReconciler(
      ClusterCache cache,
      ClusterWriter writer,
      DesiredProposals desired,
      Promoter promoter,
      PolicyPublisher publisher,
      DeadLetters deadLetters,
      ObjectEvents events,
      MeterRegistry meters,
      Clock clock,
      LossLedger losses) {
    this.cache = cache;
    this.writer = writer;
    this.desired = desired;
    this.promoter = promoter;
    this.deadLetters = deadLetters;
    this.events = events;
    this.meters = meters;
    this.clock = clock;
    this.status = new ProposalStatus(writer, losses, clock);
    this.whoDeleted = new WhoDeleted(cache, desired, publisher);
  }

  /** The informer saw the proposal go: keep its last state for the reconcile of its key. */
  public void onDeleted(WorkloadNetworkPolicyProposal lastState) {
    session.deleted(lastState);
  }

  @Override
  public Result reconcile(ObjectKey key) {
    DesiredProposals.Desired wish = desired.peek(key).orElse(null);
    WorkloadNetworkPolicyProposal live = cache.proposal(key.namespace(), key.name()).orElse(null);
    if (live == null) {
      // Kept until decided: a reset that could not be sent is tried again with the key.
      session.deletedState(key).ifPresent(p -> whoDeleted.decide(key, p));
    }
    session.forgetDeleted(key);
    if (live == null || wish != null && wish.tombstone()) {
      session.forgetApplied(key);
    }
    if (wish != null && wish.tombstone()) {
      return reset(key, live, wish);
    }
    if (live == null && wish == null) {
      return Result.done();
    }
    WorkloadNetworkPolicyProposalSpec spec = live != null ? live.getSpec() : wish.snapshot().spec();
    TargetKey target =
        ClusterCache.targetOf(key.namespace(), spec)
            .orElseThrow(
                () ->
                    new PermanentError(
                        ProposalConditions.REASON_INVALID,
                        "the proposal has no complete spec.targetRef and spec.direction",
                        null));
    Optional<WorkloadNetworkPolicy> policy = cache.policyFor(target);
    if (policy.isPresent()) {
      return leftover(key, live, wish, policy.get());
    }
    Condition ready =
        ProposalStatus.ready(
            ProposalConditions.REASON_UP_TO_DATE,
            true,
            "the proposal holds the learned allow-list; label it "
                + Labels.PROMOTE
                + "=monitor|protect to promote it");
    if (live != null) {
      Promoter.Outcome outcome = ProposalRefusals.refused(() -> promoter.promote(live, target));
      if (outcome instanceof Promoter.Outcome.Promoted) {
        writer.delete(live);
        done(key, wish);
        return Result.done();
      } else if (outcome instanceof Promoter.Outcome.NameClash c) {
        if (!ProposalStatus.readyBecause(live, ProposalConditions.REASON_NAME_CLASH)) {
          events.warning(live, ProposalConditions.REASON_NAME_CLASH, c.message());
        }
        ready = ProposalStatus.ready(ProposalConditions.REASON_NAME_CLASH, false, c.message());
      } else if (outcome instanceof Promoter.Outcome.InvalidLabel i) {
        ready =
            ProposalStatus.ready(
                ProposalConditions.REASON_INVALID_PROMOTE_LABEL, false, i.message());
      }
    }
    Optional<HasMetadata> workload = cache.workload(target.workload());
    if (workload.isEmpty()) {
      return withoutWorkload(key, wish, target);
    }
    session.workloadSeen(key);
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
    boolean needsApply = DesiredProposal.needsApply(key, live, snapshot, workload.get());
    try {
      apply(key, live, snapshot, workload.get(), needsApply, ready);
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
    long generation = generation(live);
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
        snapshot != null ? new ArrayList<>(snapshot.evidence()) : keptEvidence(key, live);
    status.write(
        key,
        live,
        evidence,
        ready,
        statusFrom == null ? null : statusFrom.convergence(),
        generation);
  }

  /** The topic reset the proposal: it goes (learning starts over in the processor). */
  private Result reset(
      ObjectKey key, WorkloadNetworkPolicyProposal live, DesiredProposals.Desired wish) {
    session.reset(key);
    if (live != null) {
      writer.delete(live);
      LOG.info("proposal {} reset by the processor: deleted", key);
      count("deleted");
    }
    desired.done(key, wish);
    return Result.done();
  }

  /** A policy covers the target: the proposal is a leftover, and a record for it is not applied. */
  private Result leftover(
      ObjectKey key,
      WorkloadNetworkPolicyProposal live,
      DesiredProposals.Desired wish,
      WorkloadNetworkPolicy policy) {
    if (live != null) {
      writer.delete(live);
      meters.counter("network.enforcer.writer.proposals.leftovers.deleted").increment();
      LOG.info(
          "deleted leftover proposal {}: policy {} covers its target",
          key,
          policy.getMetadata().getName());
    }
    if (wish != null) {
      count("skipped_policy_exists");
      desired.done(key, wish);
    }
    return Result.done();
  }

  /**
   * Not cached yet (created a moment ago): look again for a while before giving up on the record.
   */
  private Result withoutWorkload(ObjectKey key, DesiredProposals.Desired wish, TargetKey target) {
    if (wish != null) {
      Instant since = session.awaitingWorkloadSince(key, clock.instant());
      if (Duration.between(since, clock.instant()).compareTo(WORKLOAD_GRACE) < 0) {
        meters.counter("network.enforcer.writer.proposals.awaiting.workload").increment();
        return Result.requeueAfter(WORKLOAD_RECHECK);
      }
    }
    session.workloadSeen(key);
    // Its workload is gone (the garbage collector deletes an owned proposal) or never appeared.
    LOG.info("workload {} of proposal {} does not exist; nothing applied", target.workload(), key);
    count("skipped_workload_missing");
    done(key, wish);
    return Result.done();
  }

  private boolean stillTooLarge(ObjectKey key, ProposalSnapshot snapshot) {
    return session
        .tooLargeFrom(key)
        .filter(rules -> DesiredProposal.ruleCount(snapshot.spec()) >= rules)
        .isPresent();
  }

  /**
   * The evidence to keep when there is no new record: what we wrote last, else what the cluster
   * has.
   */
  private List<RuleEvidence> keptEvidence(ObjectKey key, WorkloadNetworkPolicyProposal live) {
    Optional<ProposalSnapshot> written = session.lastApplied(key);
    if (written.isPresent()) {
      return new ArrayList<>(written.get().evidence());
    }
    return live == null || live.getStatus() == null
        ? new ArrayList<>()
        : live.getStatus().getEvidence();
  }

  private static long generation(WorkloadNetworkPolicyProposal live) {
    return live == null || live.getMetadata().getGeneration() == null
        ? 0
        : live.getMetadata().getGeneration();
  }

  private void done(ObjectKey key, DesiredProposals.Desired wish) {
    if (wish != null) {
      desired.done(key, wish);
    }
  }

  private void count(String outcome) {
    meters.counter("network.enforcer.writer.proposals", "outcome", outcome).increment();
  }

  @Override
  public void permanentFailure(ObjectKey key, PermanentError error) {
    Optional<HasMetadata> workload = Optional.empty();
    DesiredProposals.Desired wish = desired.peek(key).orElse(null);
    if (wish != null) {
      if (wish.record() != null) {
        deadLetters.send(wish.record(), error.reason() + ": " + error.getMessage(), error);
      }
      if (wish.snapshot() != null) {
        workload =
            ClusterCache.targetOf(key.namespace(), wish.snapshot().spec())
                .flatMap(target -> cache.workload(target.workload()));
      }
      desired.done(key, wish);
    }
    WorkloadNetworkPolicyProposal live = cache.proposal(key.namespace(), key.name()).orElse(null);
    if (live == null) {
      // Never created: the workload's Events are where `kubectl describe` shows it.
      // Once per reason, not once per record of a target that keeps learning.
      if (workload.isPresent() && session.firstReportOnWorkload(key, error.reason())) {
        events.warning(
            workload.get(), error.reason(), "proposal " + key.name() + ": " + error.getMessage());
      }
      return;
    }
    if (!ProposalStatus.readyBecause(live, error.reason())) {
      events.warning(live, error.reason(), error.getMessage()); // once per refusal, not per attempt
    }
    status.write(
        key,
        live,
        keptEvidence(key, live),
        ProposalStatus.ready(error.reason(), false, error.getMessage()),
        null,
        generation(live));
  }
}
