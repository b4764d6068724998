package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.LostEvents;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalStatus;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.policies.PolicyPublisher;
import io.kubewarden.networkenforcer.writer.promotion.Promoter;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectEvents;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.PermanentError;
import io.kubewarden.networkenforcer.writer.reconcile.Reconciler;
import io.kubewarden.networkenforcer.writer.reconcile.Result;
import io.kubewarden.networkenforcer.writer.rendering.Ownership;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciler of one WorkloadNetworkPolicyProposal ({@code ns/name}). Desired state: the latest
 * record of the proposals topic for it (if one is unapplied), the policies of its target, its
 * promote label. Observed state: the informer caches (proposal, policies, workloads). It
 *
 * <ul>
 *   <li>deletes a proposal the topic reset, and a leftover whose target has a policy;
 *   <li>promotes (see {@link Promoter}); a name clash keeps the proposal and sets {@code Ready=False};
 *   <li>applies what was learned: the spec, with a reviewer's edits kept (only what the processor
 *       learned since the last apply is merged in, see {@link LearnedSpecMerge}; the last applied
 *       learned spec is kept in the annotation {@value #LEARNED_SPEC}), the controller owner
 *       reference to the workload (from the cache; a missing one is repaired), the evidence;
 *   <li>keeps {@code status.conditions[Ready]} (and the processor's {@code Converged}, from the
 *       latest record) with {@code observedGeneration}, written only when
 *       it changed;
 *   <li>tells a person's delete from its own from the cluster: a policy for the target, the promote
 *       label, a reset on the topic, or a workload that is gone mean the delete was not a person's;
 *       otherwise learning of the target is reset.
 * </ul>
 *
 * A refusal the API server will repeat (400, 403, 422) is a {@link PermanentError}: the record goes
 * to the dead-letter topic, the proposal gets {@code Ready=False} and an Event, and no other
 * proposal waits for it.
 */
public final class ProposalReconciler implements Reconciler<ObjectKey> {
  private static final Logger LOG = LoggerFactory.getLogger(ProposalReconciler.class);

  /** Ours: the learned spec the writer applied last, so it can tell a reviewer's edits from learning. */
  public static final String LEARNED_SPEC = Labels.PREFIX + "learned-spec";

  private final ClusterCache cache;
  private final ClusterWriter writer;
  private final DesiredProposals desired;
  private final Promoter promoter;
  private final PolicyPublisher publisher;
  private final DeadLetters deadLetters;
  private final ObjectEvents events;
  private final MeterRegistry meters;
  private final Clock clock;
  /**
   * How long a proposal record waits for its workload to reach the informer cache: the workload of a
   * new CronJob or Deployment can be created a moment before its first flows are learned, and the
   * writer's watch may see it later than the processor's record arrives.
   */
  static final Duration WORKLOAD_GRACE = Duration.ofMinutes(2);
  static final Duration WORKLOAD_RECHECK = Duration.ofSeconds(2);

  private final LossLedger losses;
  /**
   * The processor's record last written to each proposal's status in this session. A reconcile
   * without a new record (an informer event, a loss, the end of a hold) writes the status from it, not from
   * the cache, which may not show that write yet (it would take the evidence and Converged back).
   */
  private final Map<ObjectKey, ProposalSnapshot> lastRecords = new ConcurrentHashMap<>();
  /** The last state of proposals whose delete event came and was not reconciled yet. */
  private final Map<ObjectKey, WorkloadNetworkPolicyProposal> deleted = new ConcurrentHashMap<>();
  /**
   * Proposals the API server refused as too large, with the rules of the refused record: a later record
   * of as many rules or more is not tried (the learned allow-list of a target only grows until a reset).
   */
  private final Map<ObjectKey, Integer> refusedTooLarge = new ConcurrentHashMap<>();
  /** Proposals never created, with the reason of the refusal reported on their workload. */
  private final Map<ObjectKey, String> reportedOnWorkload = new ConcurrentHashMap<>();
  /** Since when a proposal record has waited for its workload to be cached. */
  private final Map<ObjectKey, Instant> awaitingWorkload = new ConcurrentHashMap<>();

  public ProposalReconciler(ClusterCache cache, ClusterWriter writer, DesiredProposals desired, Promoter promoter,
      PolicyPublisher publisher, DeadLetters deadLetters, ObjectEvents events, MeterRegistry meters, Clock clock) {
    this(cache, writer, desired, promoter, publisher, deadLetters, events, meters, clock, null);
  }

  /** @param losses the data plane's loss, which holds {@code Converged} false; null when not followed */
  public ProposalReconciler(ClusterCache cache, ClusterWriter writer, DesiredProposals desired, Promoter promoter,
      PolicyPublisher publisher, DeadLetters deadLetters, ObjectEvents events, MeterRegistry meters, Clock clock,
      LossLedger losses) {
    this.losses = losses;
    this.cache = cache;
    this.writer = writer;
    this.desired = desired;
    this.promoter = promoter;
    this.publisher = publisher;
    this.deadLetters = deadLetters;
    this.events = events;
    this.meters = meters;
    this.clock = clock;
  }

  /** The informer saw the proposal go: keep its last state for the reconcile of its key. */
  public void onDeleted(WorkloadNetworkPolicyProposal lastState) {
    deleted.put(ObjectKey.of(lastState), lastState);
    lastRecords.remove(ObjectKey.of(lastState));
  }

  /** The evidence to keep when there is no new record: what we wrote last, else what the cluster has. */
  private List<RuleEvidence> keptEvidence(ObjectKey key, WorkloadNetworkPolicyProposal live) {
    ProposalSnapshot written = lastRecords.get(key);
    if (written != null) {
      return new ArrayList<>(written.evidence());
    }
    return live == null || live.getStatus() == null ? new ArrayList<>() : live.getStatus().getEvidence();
  }

  @Override
  public Result reconcile(ObjectKey key) {
    DesiredProposals.Desired wish = desired.peek(key).orElse(null);
    WorkloadNetworkPolicyProposal live = cache.proposal(key.namespace(), key.name()).orElse(null);
    if (live == null) {
      WorkloadNetworkPolicyProposal last = deleted.remove(key);
      if (last != null) {
        decideWhoDeleted(key, last);
      }
    } else {
      deleted.remove(key);
    }
    if (live == null || wish != null && wish.tombstone()) {
      lastRecords.remove(key);
    }
    if (wish != null && wish.tombstone()) {
      refusedTooLarge.remove(key);
      if (live != null) {
        writer.delete(live);
        LOG.info("proposal {} reset by the processor: deleted", key);
        meters.counter("network.enforcer.writer.proposals", "outcome", "deleted").increment();
      }
      desired.done(key, wish);
      return Result.done();
    }
    if (live == null && wish == null) {
      return Result.done();
    }
    WorkloadNetworkPolicyProposalSpec spec = live != null ? live.getSpec() : wish.snapshot().spec();
    Optional<TargetKey> target = ClusterCache.targetOf(key.namespace(), spec);
    if (target.isEmpty()) {
      throw new PermanentError(ProposalConditions.REASON_INVALID,
          "the proposal has no complete spec.targetRef and spec.direction", null);
    }
    Optional<WorkloadNetworkPolicy> policy = cache.policyFor(target.get());
    if (policy.isPresent()) {
      if (live != null) {
        writer.delete(live);
        meters.counter("network.enforcer.writer.proposals.leftovers.deleted").increment();
        LOG.info("deleted leftover proposal {}: policy {} covers its target", key, policy.get().getMetadata().getName());
      }
      if (wish != null) {
        meters.counter("network.enforcer.writer.proposals", "outcome", "skipped_policy_exists").increment();
        desired.done(key, wish);
      }
      return Result.done();
    }
    Condition ready = readyCondition(ProposalConditions.REASON_UP_TO_DATE, true,
        "the proposal holds the learned allow-list; label it " + Labels.PROMOTE + "=monitor|protect to promote it");
    if (live != null) {
      Promoter.Outcome outcome = refused(() -> promoter.promote(live, target.get()));
      if (outcome instanceof Promoter.Outcome.Promoted) {
        writer.delete(live);
        if (wish != null) {
          desired.done(key, wish);
        }
        return Result.done();
      } else if (outcome instanceof Promoter.Outcome.NameClash c) {
        if (!hasCondition(live, ProposalConditions.REASON_NAME_CLASH)) {
          events.warning(live, ProposalConditions.REASON_NAME_CLASH, c.message());
        }
        ready = readyCondition(ProposalConditions.REASON_NAME_CLASH, false, c.message());
      } else if (outcome instanceof Promoter.Outcome.InvalidLabel i) {
        ready = readyCondition(ProposalConditions.REASON_INVALID_PROMOTE_LABEL, false, i.message());
      }
    }
    Optional<HasMetadata> workload = cache.workload(target.get().workload());
    if (workload.isEmpty()) {
      // Not cached yet (created a moment ago): look again for a while before giving up on the record.
      if (wish != null) {
        Instant since = awaitingWorkload.computeIfAbsent(key, k -> clock.instant());
        if (Duration.between(since, clock.instant()).compareTo(WORKLOAD_GRACE) < 0) {
          meters.counter("network.enforcer.writer.proposals.awaiting.workload").increment();
          return Result.requeueAfter(WORKLOAD_RECHECK);
        }
      }
      awaitingWorkload.remove(key);
      // Its workload is gone (the garbage collector deletes an owned proposal) or never appeared.
      LOG.info("workload {} of proposal {} does not exist; nothing applied", target.get().workload(), key);
      meters.counter("network.enforcer.writer.proposals", "outcome", "skipped_workload_missing").increment();
      if (wish != null) {
        desired.done(key, wish);
      }
      return Result.done();
    }
    awaitingWorkload.remove(key);
    if (wish == null && live != null && refusedAsItIs(live)) {
      // The API server refused this very generation for good: wait for the object or the topic to change.
      return Result.done();
    }
    ProposalSnapshot snapshot = wish == null ? null : wish.snapshot();
    if (snapshot != null && stillTooLarge(key, snapshot)) {
      // Learned specs only grow: this one cannot fit either. Reported once, parked once.
      LOG.debug("proposal {}: {} rules, refused as too large from {} on; not applied", key,
          ruleCount(snapshot.spec()), refusedTooLarge.get(key));
      meters.counter("network.enforcer.writer.proposals", "outcome", "skipped_too_large").increment();
      desired.done(key, wish);
      return Result.done();
    }
    boolean needsApply = live == null || snapshot != null && learnedChanged(live, snapshot)
        || !Ownership.carriesOurMetadata(live, withMetadata(key, workload.get(), null, Map.of()))
        || snapshot != null && !annotationsApplied(live, snapshot);
    long generation = live == null || live.getMetadata().getGeneration() == null ? 0
        : live.getMetadata().getGeneration();
    try {
      if (needsApply) {
        WorkloadNetworkPolicyProposal applied = refused(() -> writer.apply(desiredProposal(key, live, snapshot,
            workload.get())));
        generation = applied == null || applied.getMetadata().getGeneration() == null ? generation
            : applied.getMetadata().getGeneration();
        reportedOnWorkload.remove(key);
      }
      ProposalSnapshot statusFrom = snapshot != null ? snapshot : lastRecords.get(key);
      List<RuleEvidence> evidence = snapshot != null ? new ArrayList<>(snapshot.evidence()) : keptEvidence(key, live);
      writeStatus(key, live, evidence, ready, statusFrom == null ? null : statusFrom.convergence(), generation);
    } catch (PermanentError e) {
      if (snapshot != null && ProposalConditions.REASON_TOO_LARGE.equals(e.reason())) {
        refusedTooLarge.put(key, ruleCount(snapshot.spec()));
      }
      throw e;
    }
    if (snapshot != null) {
      // A record fitted (a reset made the allow-list small again): later ones are tried again.
      refusedTooLarge.remove(key);
      lastRecords.put(key, snapshot);
    }
    meters.counter("network.enforcer.writer.proposals", "outcome", needsApply ? "applied" : "unchanged").increment();
    if (wish != null) {
      desired.done(key, wish);
    }
    return Result.done();
  }

  private boolean stillTooLarge(ObjectKey key, ProposalSnapshot snapshot) {
    Integer refusedAt = refusedTooLarge.get(key);
    return refusedAt != null && ruleCount(snapshot.spec()) >= refusedAt;
  }

  static int ruleCount(WorkloadNetworkPolicyProposalSpec spec) {
    int rules = 0;
    if (spec.getKubernetes() != null) {
      rules += spec.getKubernetes().getIngress() == null ? 0 : spec.getKubernetes().getIngress().size();
      rules += spec.getKubernetes().getEgress() == null ? 0 : spec.getKubernetes().getEgress().size();
    }
    if (spec.getIstio() != null && spec.getIstio().getRules() != null) {
      rules += spec.getIstio().getRules().size();
    }
    return rules;
  }

  /** Whether the learned spec differs from the one applied last (else a reviewer's edit stands as is). */
  private static boolean learnedChanged(WorkloadNetworkPolicyProposal live, ProposalSnapshot snapshot) {
    WorkloadNetworkPolicyProposalSpec previous = lastLearned(live);
    return previous == null ? !Objects.equals(live.getSpec(), snapshot.spec())
        : !Objects.equals(previous, snapshot.spec());
  }

  private WorkloadNetworkPolicyProposal desiredProposal(ObjectKey key, WorkloadNetworkPolicyProposal live,
      ProposalSnapshot snapshot, HasMetadata workload) {
    WorkloadNetworkPolicyProposalSpec learned = snapshot != null ? snapshot.spec() : lastLearned(live);
    WorkloadNetworkPolicyProposalSpec spec;
    if (live == null) {
      spec = snapshot.spec();
    } else if (snapshot == null || !learnedChanged(live, snapshot)) {
      spec = live.getSpec();
    } else {
      spec = LearnedSpecMerge.merge(lastLearned(live), snapshot.spec(), live.getSpec());
    }
    WorkloadNetworkPolicyProposal p = withMetadata(key, workload, learned,
        snapshot != null ? snapshot.metadataAnnotations() : carriedAnnotations(live));
    p.setSpec(spec);
    return p;
  }

  /**
   * Whether the live proposal carries the snapshot's annotations (a replay window, the inferred
   * marker) and no inferred marker the snapshot dropped (the cluster now confirms the workloads).
   */
  private static boolean annotationsApplied(WorkloadNetworkPolicyProposal live, ProposalSnapshot snapshot) {
    Map<String, String> annotations = live.getMetadata().getAnnotations() == null ? Map.of()
        : live.getMetadata().getAnnotations();
    Map<String, String> wanted = snapshot.metadataAnnotations();
    return annotations.entrySet().containsAll(wanted.entrySet())
        && Objects.equals(annotations.get(Labels.INFERRED_WORKLOADS), wanted.get(Labels.INFERRED_WORKLOADS));
  }

  /** The snapshot annotations a live proposal carries, kept when it is re-applied without a new snapshot. */
  private static Map<String, String> carriedAnnotations(WorkloadNetworkPolicyProposal live) {
    Map<String, String> annotations = live == null || live.getMetadata().getAnnotations() == null ? Map.of()
        : live.getMetadata().getAnnotations();
    Map<String, String> carried = new java.util.TreeMap<>();
    for (String name : List.of(Labels.INFERRED_WORKLOADS, Labels.REPLAYED_FROM)) {
      if (annotations.containsKey(name)) {
        carried.put(name, annotations.get(name));
      }
    }
    return carried;
  }

  private static WorkloadNetworkPolicyProposal withMetadata(ObjectKey key, HasMetadata workload,
      WorkloadNetworkPolicyProposalSpec learned, Map<String, String> snapshotAnnotations) {
    WorkloadNetworkPolicyProposal p = new WorkloadNetworkPolicyProposal();
    ObjectMetaBuilder meta = new ObjectMetaBuilder()
        .withName(key.name())
        .withNamespace(key.namespace())
        .withLabels(Map.of(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE))
        .withOwnerReferences(ownerReferenceTo(workload));
    Map<String, String> annotations = new java.util.TreeMap<>(snapshotAnnotations);
    if (learned != null) {
      annotations.put(LEARNED_SPEC, LearnedSpecAnnotation.encode(learned));
    }
    if (!annotations.isEmpty()) {
      meta.withAnnotations(annotations);
    }
    p.setMetadata(meta.build());
    return p;
  }

  /**
   * The controller reference to the workload, as the reference sets it (and the admission policy
   * allows): {@code apps/v1} for Deployments, StatefulSets and DaemonSets, {@code batch/v1} for CronJobs.
   */
  public static OwnerReference ownerReferenceTo(HasMetadata workload) {
    String apiVersion = WorkloadKind.fromKind(workload.getKind()).map(WorkloadKind::apiVersion)
        .orElseGet(workload::getApiVersion);
    return new OwnerReferenceBuilder()
        .withApiVersion(apiVersion)
        .withKind(workload.getKind())
        .withName(workload.getMetadata().getName())
        .withUid(workload.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  static WorkloadNetworkPolicyProposalSpec lastLearned(WorkloadNetworkPolicyProposal live) {
    Map<String, String> annotations = live.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(LEARNED_SPEC);
    if (value == null) {
      return null;
    }
    try {
      return LearnedSpecAnnotation.decode(value);
    } catch (IllegalArgumentException e) {
      LOG.warn("annotation {} of {}/{} is {}; treating everything learned as new", LEARNED_SPEC,
          live.getMetadata().getNamespace(), live.getMetadata().getName(), e.getMessage());
      return null;
    }
  }

  /**
   * Evidence, the conditions (the writer's Ready, the processor's Converged, held False while the
   * data plane lost events, see {@link ConvergenceUnderLoss}), the loss and observedGeneration in one
   * apply of the status; nothing when unchanged. {@code fromRecord} null keeps the processor's
   * verdict the status holds (no new record, or a processor from before convergence). When a hold
   * ends, the {@link LossConsumer} has every proposal looked at again.
   */
  private void writeStatus(ObjectKey key, WorkloadNetworkPolicyProposal live,
      List<RuleEvidence> evidence, Condition ready, Convergence fromRecord, long generation) {
    WorkloadNetworkPolicyProposalStatus current = live == null ? null : live.getStatus();
    Condition before = condition(current, ProposalConditions.READY);
    Condition convergedBefore = condition(current, Convergence.CONDITION_TYPE);
    Condition settledBefore = condition(current, ConvergenceUnderLoss.LEARNING_SETTLED);
    ConvergenceUnderLoss.Outcome convergence = ConvergenceUnderLoss.decide(
        ConvergenceUnderLoss.learned(fromRecord, convergedBefore, settledBefore), losses, clock.instant());
    Condition convergedNow = convergence.converged();
    List<LostEvents> lostBefore = current == null || current.getLostEvents() == null ? List.of()
        : current.getLostEvents();
    boolean sameCondition = before != null && Objects.equals(before.getStatus(), ready.getStatus())
        && Objects.equals(before.getReason(), ready.getReason()) && Objects.equals(before.getMessage(),
        ready.getMessage()) && Objects.equals(before.getObservedGeneration(), generation);
    boolean sameConverged = sameVerdict(convergedBefore, convergedNow)
        && sameVerdict(settledBefore, convergence.learningSettled());
    if (current != null && sameCondition && sameConverged && Objects.equals(current.getEvidence(), evidence)
        && Objects.equals(current.getObservedGeneration(), generation)
        && lostBefore.equals(convergence.lostEvents())) {
      return;
    }
    String now = DateTimeFormatter.ISO_INSTANT.format(clock.instant());
    boolean sameStatus = before != null && Objects.equals(before.getStatus(), ready.getStatus());
    Condition written = new ConditionBuilder(ready).withObservedGeneration(generation)
        .withLastTransitionTime(sameStatus && before.getLastTransitionTime() != null ? before.getLastTransitionTime()
            : now).build();
    WorkloadNetworkPolicyProposal s = new WorkloadNetworkPolicyProposal();
    s.setMetadata(new ObjectMetaBuilder().withName(key.name()).withNamespace(key.namespace()).build());
    WorkloadNetworkPolicyProposalStatus status = new WorkloadNetworkPolicyProposalStatus(evidence);
    List<Condition> conditions = new ArrayList<>(List.of(written));
    if (convergedNow != null) {
      // The processor decides convergence (flow time); its transition time is kept as it gave it.
      conditions.add(new ConditionBuilder(convergedNow).withObservedGeneration(generation).build());
    }
    if (convergence.learningSettled() != null) {
      conditions.add(new ConditionBuilder(convergence.learningSettled()).withObservedGeneration(generation).build());
    }
    status.setConditions(conditions);
    status.setObservedGeneration(generation);
    status.setLostEvents(convergence.lostEvents().isEmpty() ? null : convergence.lostEvents());
    s.setStatus(status);
    try {
      writer.applyStatus(s);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        LOG.info("proposal {} was deleted before its status was written", key);
        return;
      }
      if (tooLarge(e, said(e))) {
        // The spec fitted, the spec and its evidence do not.
        throw tooLargeError(e);
      }
      throw e;
    }
  }

  private static boolean sameVerdict(Condition before, Condition now) {
    return now == null ? before == null : before != null
        && Objects.equals(before.getStatus(), now.getStatus())
        && Objects.equals(before.getReason(), now.getReason())
        && Objects.equals(before.getMessage(), now.getMessage())
        && Objects.equals(before.getLastTransitionTime(), now.getLastTransitionTime());
  }

  private static Condition condition(WorkloadNetworkPolicyProposalStatus status, String type) {
    return status == null || status.getConditions() == null ? null
        : status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  /** Ready=False for a permanent refusal, written for the current generation. */
  private static boolean refusedAsItIs(WorkloadNetworkPolicyProposal p) {
    Long generation = p.getMetadata().getGeneration();
    return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
        .anyMatch(c -> ProposalConditions.READY.equals(c.getType()) && "False".equals(c.getStatus())
            && (ProposalConditions.REASON_FORBIDDEN.equals(c.getReason())
                || ProposalConditions.REASON_INVALID.equals(c.getReason())
                || ProposalConditions.REASON_TOO_LARGE.equals(c.getReason()))
            && java.util.Objects.equals(c.getObservedGeneration(), generation));
  }

  private static boolean hasCondition(WorkloadNetworkPolicyProposal p, String reason) {
    return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
        .anyMatch(c -> ProposalConditions.READY.equals(c.getType()) && reason.equals(c.getReason()));
  }

  private static Condition readyCondition(String reason, boolean ok, String message) {
    return new ConditionBuilder().withType(ProposalConditions.READY).withStatus(ok ? "True" : "False")
        .withReason(reason).withMessage(message).build();
  }

  /**
   * The authorizer's refusal ({@code ... is forbidden: User "u" cannot patch resource ...}), as
   * opposed to an admission policy's. It is not final: a restarted kube-apiserver answers it until
   * its RBAC caches are warm, and an operator may grant the permission, so the key is retried with
   * back-off instead of the record being dead-lettered.
   */
  private static final java.util.regex.Pattern AUTHORIZATION_DENIAL =
      java.util.regex.Pattern.compile("is forbidden: User \".*\" cannot ");

  /** Runs a write; a refusal the API server will repeat becomes a {@link PermanentError}. */
  private static <T> T refused(java.util.function.Supplier<T> write) {
    try {
      return write.get();
    } catch (KubernetesClientException e) {
      String said = said(e);
      if (e.getCode() == 403 && !AUTHORIZATION_DENIAL.matcher(said).find()) {
        throw new PermanentError(ProposalConditions.REASON_FORBIDDEN, "the API server forbids the write: " + said, e);
      }
      if (tooLarge(e, said)) {
        throw tooLargeError(e);
      }
      if (e.getCode() == 400 || e.getCode() == 422) {
        throw new PermanentError(ProposalConditions.REASON_INVALID, "the API server rejects the proposal as invalid: "
            + said, e);
      }
      throw e;
    }
  }

  /** The API server's own words, without the request line: the same refusal reads the same. */
  private static String said(KubernetesClientException e) {
    return e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
  }

  private static PermanentError tooLargeError(KubernetesClientException e) {
    return new PermanentError(ProposalConditions.REASON_TOO_LARGE, TOO_LARGE_ADVICE + " (" + said(e) + ")", e);
  }

  static final String TOO_LARGE_ADVICE = "the proposal is too large for the API server to store: a target with "
      + "thousands of peers (the cluster DNS, a monitoring system) learns a rule per peer, and Kubernetes keeps an "
      + "object in at most 1.5 MiB (etcd's limit), about 3,000 peers with their evidence. Write a "
      + "WorkloadNetworkPolicy for this workload by hand (for example one rule for all namespaces); once it "
      + "exists, learning of the target stops and this proposal is deleted";

  /**
   * The API server's answers to an object over the size limit, the first two seen from a real one:
   * etcd's "request is too large" (500, over 1.5 MiB), kube-apiserver's own gRPC limit to etcd
   * ("trying to send message larger than max", 500, over 2 MiB: the new spec with the status evidence
   * the object already holds) and the request body's limit (413). Retrying sends the same bytes again.
   */
  static boolean tooLarge(KubernetesClientException e, String said) {
    return e.getCode() == 413 || said != null && (said.contains("request is too large")
        || said.contains("trying to send message larger than max"));
  }

  /**
   * Whose delete was it? Decided from the cluster and the topic: a policy for the target (promotion,
   * leftover), the promote label (promotion), a reset on the proposals topic (the processor's own
   * reset), or a workload that is gone (garbage collection) mean it was not a person's. Otherwise
   * a person deleted the proposal to start learning over.
   */
  private void decideWhoDeleted(ObjectKey key, WorkloadNetworkPolicyProposal last) {
    Optional<TargetKey> target = ClusterCache.targetOf(key.namespace(), last.getSpec());
    if (target.isEmpty()) {
      return;
    }
    Map<String, String> labels = last.getMetadata().getLabels() == null ? Map.of() : last.getMetadata().getLabels();
    String why;
    if (cache.policyFor(target.get()).isPresent()) {
      why = "a policy covers the target";
    } else if (labels.containsKey(Labels.PROMOTE)) {
      why = "promoted";
    } else if (desired.resetByTopic(key)) {
      why = "reset by the processor";
    } else if (cache.workload(target.get().workload()).filter(w -> w.getMetadata().getDeletionTimestamp() == null)
        .isEmpty()) {
      why = "its workload is gone"; // the garbage collector, also in a foreground deletion of the workload
    } else {
      publisher.resetLearning(target.get(), "proposal " + key + " was deleted by hand");
      return;
    }
    LOG.debug("proposal {} deleted: {}; learning goes on", key, why);
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
        workload = ClusterCache.targetOf(key.namespace(), wish.snapshot().spec())
            .flatMap(target -> cache.workload(target.workload()));
      }
      desired.done(key, wish);
    }
    WorkloadNetworkPolicyProposal live = cache.proposal(key.namespace(), key.name()).orElse(null);
    if (live == null) {
      // Never created: the workload's Events are where `kubectl describe` shows it.
      // Once per reason, not once per record of a target that keeps learning.
      if (workload.isPresent() && !error.reason().equals(reportedOnWorkload.put(key, error.reason()))) {
        events.warning(workload.get(), error.reason(), "proposal " + key.name() + ": " + error.getMessage());
      }
      return;
    }
    if (!hasCondition(live, error.reason())) {
      events.warning(live, error.reason(), error.getMessage()); // once per refusal, not per attempt
    }
    long generation = live.getMetadata().getGeneration() == null ? 0 : live.getMetadata().getGeneration();
    writeStatus(key, live, keptEvidence(key, live), readyCondition(error.reason(), false, error.getMessage()), null,
        generation);
  }
}
