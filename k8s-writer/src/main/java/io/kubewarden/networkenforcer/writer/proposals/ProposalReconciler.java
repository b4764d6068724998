package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.conditions.ProposalConditions;
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
 *   <li>finishes a proposal deleted while it held the finalizer ({@link LearningResetFinalizer}):
 *       whose delete it was is read from the cluster ({@link WhoDeleted}), and a person's resets
 *       learning of the target;
 *   <li>deletes a proposal the topic reset, and a leftover whose target has a policy;
 *   <li>promotes (see {@link Promoter}); a name clash keeps the proposal and sets {@code
 *       Ready=False};
 *   <li>applies what was learned ({@link LearnedApply}, {@link DesiredProposal}: the spec with a
 *       reviewer's edits kept, the owner reference to the workload from the cache, a missing one
 *       repaired);
 *   <li>writes the status ({@link ProposalStatus}) when it changed.
 * </ul>
 *
 * A refusal the API server will repeat is a {@link PermanentError} ({@link ProposalRefusals},
 * reported by {@link PermanentFailures}): the record goes to the dead-letter topic, the proposal
 * gets {@code Ready=False} and an Event, and no other proposal waits for it. It keeps nothing
 * between calls; what the session knows beyond the cluster and the topic is in {@link
 * SessionRecords}.
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
  private final ObjectEvents events;
  private final MeterRegistry meters;
  private final Clock clock;
  private final LearningResetFinalizer finalizer;
  private final SessionRecords session = new SessionRecords();
  private final LearnedApply learned;
  private final PermanentFailures failures;

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
    this.events = events;
    this.meters = meters;
    this.clock = clock;
    ProposalStatus status = new ProposalStatus(writer, losses, clock);
    this.finalizer =
        new LearningResetFinalizer(writer, new WhoDeleted(cache, desired, publisher)::decide);
    this.learned = new LearnedApply(writer, desired, status, session, meters);
    this.failures = new PermanentFailures(cache, desired, deadLetters, events, status, session);
  }

  @Override
  public Result reconcile(ObjectKey key) {
    DesiredProposals.Desired wish = desired.peek(key).orElse(null);
    WorkloadNetworkPolicyProposal live = cache.proposal(key.namespace(), key.name()).orElse(null);
    if (live == null || wish != null && wish.tombstone()) {
      session.forgetApplied(key); // nothing written to it counts any more
    }
    if (live != null && LearningResetFinalizer.deleting(live)) {
      return finalizer.finish(key, live); // its delete event brings a pending record back
    }
    if (wish != null && wish.tombstone()) {
      return reset(key, live, wish);
    }
    if (live == null && wish == null) {
      return Result.done();
    }
    TargetKey target = targetOf(key, live, wish);
    Optional<WorkloadNetworkPolicy> policy = cache.policyFor(target);
    if (policy.isPresent()) {
      return leftover(key, live, wish, policy.get());
    }
    Optional<Condition> ready = promote(key, live, wish, target);
    if (ready.isEmpty()) {
      return Result.done(); // promoted: the proposal is gone
    }
    Optional<HasMetadata> workload = cache.workload(target.workload());
    if (workload.isEmpty()) {
      return withoutWorkload(key, wish, target);
    }
    session.workloadSeen(key);
    return learned.apply(key, live, wish, workload.get(), ready.get());
  }

  private static TargetKey targetOf(
      ObjectKey key, WorkloadNetworkPolicyProposal live, DesiredProposals.Desired wish) {
    WorkloadNetworkPolicyProposalSpec spec = live != null ? live.getSpec() : wish.snapshot().spec();
    return ClusterCache.targetOf(key.namespace(), spec)
        .orElseThrow(
            () ->
                new PermanentError(
                    ProposalConditions.REASON_INVALID,
                    "the proposal has no complete spec.targetRef and spec.direction",
                    null));
  }

  /**
   * Promotes a labelled proposal ({@link Promoter}). Empty when it was promoted (and deleted), else
   * the Ready condition to write: up to date, or why it was not promoted.
   */
  private Optional<Condition> promote(
      ObjectKey key,
      WorkloadNetworkPolicyProposal live,
      DesiredProposals.Desired wish,
      TargetKey target) {
    Condition upToDate =
        ProposalStatus.ready(
            ProposalConditions.REASON_UP_TO_DATE,
            true,
            "the proposal holds the learned allow-list; label it "
                + Labels.PROMOTE
                + "=monitor|protect to promote it");
    if (live == null) {
      return Optional.of(upToDate);
    }
    Promoter.Outcome outcome = ProposalRefusals.refused(() -> promoter.promote(live, target));
    if (outcome instanceof Promoter.Outcome.Promoted) {
      writer.delete(live);
      done(key, wish);
      return Optional.empty();
    } else if (outcome instanceof Promoter.Outcome.NameClash c) {
      if (!ProposalStatus.readyBecause(live, ProposalConditions.REASON_NAME_CLASH)) {
        events.warning(live, ProposalConditions.REASON_NAME_CLASH, c.message());
      }
      return Optional.of(
          ProposalStatus.ready(ProposalConditions.REASON_NAME_CLASH, false, c.message()));
    } else if (outcome instanceof Promoter.Outcome.InvalidLabel i) {
      return Optional.of(
          ProposalStatus.ready(
              ProposalConditions.REASON_INVALID_PROMOTE_LABEL, false, i.message()));
    }
    return Optional.of(upToDate);
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

  private void done(ObjectKey key, DesiredProposals.Desired wish) {
    if (wish != null) {
      desired.done(key, wish);
    }
  }

  private void count(String outcome) {
    meters.counter("network.enforcer.writer.proposals", "outcome", outcome).increment();
  }

  static long generation(WorkloadNetworkPolicyProposal live) {
    return live == null || live.getMetadata().getGeneration() == null
        ? 0
        : live.getMetadata().getGeneration();
  }

  @Override
  public void permanentFailure(ObjectKey key, PermanentError error) {
    failures.report(key, error);
  }
}
