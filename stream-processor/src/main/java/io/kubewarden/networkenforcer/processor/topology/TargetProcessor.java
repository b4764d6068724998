package io.kubewarden.networkenforcer.processor.topology;

import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.ProposalEmission;
import io.kubewarden.networkenforcer.processor.evaluation.MonitorModeEvaluation;
import io.kubewarden.networkenforcer.processor.evaluation.NativePolicies;
import io.kubewarden.networkenforcer.processor.learning.AllowListLearner;
import io.kubewarden.networkenforcer.processor.learning.ConvergenceRule;
import io.kubewarden.networkenforcer.processor.learning.EvidenceKey;
import io.kubewarden.networkenforcer.processor.learning.LearnedAllowList;
import io.kubewarden.networkenforcer.processor.learning.PortStats;
import io.kubewarden.networkenforcer.processor.learning.ProposalRenderer;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import io.kubewarden.networkenforcer.processor.observation.FlowTimeBound;
import io.kubewarden.networkenforcer.processor.observation.Observation;
import io.kubewarden.networkenforcer.processor.store.StoreNames;
import io.kubewarden.networkenforcer.processor.violations.ViolationFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one stateful step: every event of a target meets the target's learned allow-list, its
 * evidence and its policy here (the stores are local because observations, policies and control are
 * co-partitioned by target key).
 *
 * <ul>
 *   <li>No policy: forwarded flows are learned; a proposal is emitted only when the allow-list
 *       changes; evidence-only changes are flushed by a wall-clock punctuator.
 *   <li>A policy: learning stops. Denies become violations with the action of the deny; Kubernetes
 *       monitor mode evaluates forwarded flows in software.
 *   <li>Policy upsert clears the learned state; a policy delete lets the next flow start afresh;
 *       ResetLearning clears the state and tombstones the proposal, and observations last seen
 *       before the reset are not learned for a while (they were on their way through the combiner
 *       and the repartition topic while the reset took the shorter control topic).
 * </ul>
 */
public final class TargetProcessor implements Processor<String, TargetEvent, String, TargetOutput> {
  private static final Logger LOG = LoggerFactory.getLogger(TargetProcessor.class);
  private static final int CACHE_ENTRIES = 10_000;

  /** Why an observation last seen before its target's reset is not learned. */
  public static final String BEFORE_RESET = "before-reset";

  /**
   * How long, in flow time, a reset's fence is kept: longer than any observation takes to reach its
   * target behind the reset (the combiner holds one for seconds).
   */
  static final Duration RESET_FENCE_HORIZON = Duration.ofMinutes(10);

  private final Duration evidenceFlushInterval;
  private final AllowListLearner learner;
  private final ConvergenceRule convergence;
  private final boolean ciliumEntities;

  /** L7 HTTP learning on: a request on a connection published already is news. */
  private final boolean l7Http;

  /** How far flow time must move before targets are checked for a quiet period that ended. */
  private final Duration convergenceSweepStep;

  /** The latest flow time this task has seen: "now" for convergence, never the wall clock. */
  private Instant latestFlowTime;

  private Instant lastSweepFlowTime;
  private final MonitorModeEvaluation monitor;
  private final ProcessorMetrics metrics;
  private final ProposalEmission emission;

  /** False where no target can have a policy (offline learning): see the constructor. */
  private final boolean policiesRead;

  /**
   * {@link ProposalEmission#EVERY_CHANGE}: a target's allow-list changes are published at most once
   * per this much wall-clock time, the first at once (zero: every change at once).
   */
  private final Duration proposalInterval;

  /** Targets published for an allow-list change in the current proposal interval. */
  private final Set<String> publishedThisInterval = new HashSet<>();

  /**
   * Targets whose allow-list changed again within the interval, with the flow time of that change:
   * published at its end as of that time (the bytes an immediate rendering would have had). Their
   * state is stored marked dirty, so after a restart the evidence flush publishes them instead.
   */
  private final Map<String, Instant> held = new LinkedHashMap<>();

  /**
   * Held targets with a flow after their change: still dirty once published, as they would have
   * been.
   */
  private final Set<String> touchedSinceHeld = new HashSet<>();

  /**
   * {@link ProposalEmission#AT_FLUSH}: targets whose allow-list changed since the last flush, with
   * the flow time their proposal is rendered as of (the one an immediate rendering would have
   * used).
   */
  private final Map<String, Instant> changedSinceFlush = new LinkedHashMap<>();

  /**
   * {@link ProposalEmission#AT_FLUSH}: allow-lists changed since the last flush, written to the
   * store by the flush: a busy target's allow-list is serialized once per flush, not once per new
   * peer.
   */
  private final Map<String, LearnedAllowList> unwritten = new HashMap<>();

  /**
   * {@link ProposalEmission#AT_FLUSH}: evidence changed since the last flush, written by the flush.
   */
  private final Map<String, PortStats> unwrittenEvidence = new HashMap<>();

  /** Targets that reached the most peers one target learns, warned about once per task. */
  private final Set<String> capped = new HashSet<>();

  /** Targets whose evidence changed since their last snapshot; rebuilt from the store on init. */
  private final SortedSet<String> dirty = new TreeSet<>();

  /** Allow-lists of recently seen targets, so a flow does not decode the whole allow-list. */
  private final DeserializedCache<LearnedAllowList> allowLists =
      new DeserializedCache<>(CACHE_ENTRIES);

  /** Lets a convergence sweep skip the store while no allow-list can be due. */
  private final UnconvergedChanges unconverged = new UnconvergedChanges();

  /** Policies of recently seen targets, so a flow does not decode the whole policy. */
  private final DeserializedCache<PolicySnapshot> knownPolicies =
      new DeserializedCache<>(CACHE_ENTRIES);

  /** The stored reset fences, read once at init; usually empty. */
  private final Map<String, Instant> fences = new HashMap<>();

  private ProcessorContext<String, TargetOutput> context;
  private KeyValueStore<String, LearnedAllowList> learned;
  private KeyValueStore<String, PortStats> evidence;
  private KeyValueStore<String, PolicySnapshot> policies;
  private KeyValueStore<String, Long> resetFences;
  private NativePolicies nativePolicies;

  /**
   * @param emission when a changed allow-list is published
   * @param proposalInterval with {@link ProposalEmission#EVERY_CHANGE}: at most one publication of
   *     a target's changes per this much wall-clock time, the first at once (zero: every change)
   * @param policiesRead whether policies reach this processor at all ({@link
   *     io.kubewarden.networkenforcer.processor.config.ProcessorConfig#policyInputs}): without them
   *     a deny is never re-attributed, only counted as its re-attribution would have been
   */
  public TargetProcessor(
      Duration evidenceFlushInterval,
      AllowListLearner learner,
      LearningSettings learning,
      ProcessorMetrics metrics,
      ProposalEmission emission,
      Duration proposalInterval,
      boolean policiesRead) {
    this.policiesRead = policiesRead;
    this.emission = emission;
    this.proposalInterval = proposalInterval;
    this.evidenceFlushInterval = evidenceFlushInterval;
    this.learner = learner;
    this.convergence = new ConvergenceRule(learning);
    this.ciliumEntities = learning.ciliumEntities();
    this.l7Http = learning.l7Http();
    Duration step = learning.quietPeriod().dividedBy(100);
    this.convergenceSweepStep =
        step.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : step;
    this.metrics = metrics;
    this.monitor = new MonitorModeEvaluation(metrics);
  }

  @Override
  public void init(ProcessorContext<String, TargetOutput> context) {
    this.context = context;
    this.learned = context.getStateStore(StoreNames.LEARNED);
    this.evidence = context.getStateStore(StoreNames.EVIDENCE);
    this.policies = context.getStateStore(StoreNames.POLICIES);
    this.resetFences = context.getStateStore(StoreNames.RESET_FENCES);
    this.nativePolicies = new NativePolicies(context.getStateStore(StoreNames.NATIVE_POLICIES));
    allowLists.clear();
    knownPolicies.clear();
    dirty.clear();
    changedSinceFlush.clear();
    unwritten.clear();
    unwrittenEvidence.clear();
    publishedThisInterval.clear();
    held.clear();
    touchedSinceHeld.clear();
    latestFlowTime = null;
    lastSweepFlowTime = null;
    unconverged.clear();
    fences.clear();
    try (KeyValueIterator<String, Long> all = resetFences.all()) {
      all.forEachRemaining(
          e -> {
            if (e.value != null) {
              fences.put(e.key, Instant.ofEpochMilli(e.value));
            }
          });
    }
    try (KeyValueIterator<String, LearnedAllowList> all = learned.all()) {
      while (all.hasNext()) {
        KeyValue<String, LearnedAllowList> e = all.next();
        if (e.value != null && e.value.evidenceDirty()) {
          dirty.add(e.key);
        }
        unconverged.stored(e.value);
      }
    }
    context.schedule(evidenceFlushInterval, PunctuationType.WALL_CLOCK_TIME, this::flushEvidence);
    if (emission == ProposalEmission.EVERY_CHANGE && !proposalInterval.isZero()) {
      context.schedule(proposalInterval, PunctuationType.WALL_CLOCK_TIME, this::publishHeld);
    }
  }

  @Override
  public void process(Record<String, TargetEvent> record) {
    String key = record.key();
    TargetEvent event = record.value();
    if (event instanceof TargetEvent.PolicyChanged p) {
      policyChanged(key, p.policy());
    } else if (event instanceof TargetEvent.Command c) {
      command(record, c.command());
    } else if (event instanceof TargetEvent.Observed o) {
      observed(record, TargetKey.parse(key), o.observation());
    }
  }

  private void policyChanged(String key, PolicySnapshot policy) {
    knownPolicies.put(key, policy);
    if (policy == null) {
      policies.delete(key);
      LOG.info("policy of {} deleted: the next flow starts a new proposal", key);
      return;
    }
    policies.put(key, policy);
    if (forget(key)) {
      LOG.info(
          "policy {}/{} exists for {}: learned state cleared, learning stopped",
          policy.namespace(),
          policy.name(),
          key);
    }
  }

  /** Deletes the learned allow-list of a target and its evidence; true when there was one. */
  private boolean forget(String key) {
    LearnedAllowList state = allowList(key);
    dirty.remove(key);
    changedSinceFlush.remove(key);
    held.remove(key);
    touchedSinceHeld.remove(key);
    unwritten.remove(key);
    allowLists.remove(key);
    if (state == null) {
      return false;
    }
    state
        .peers()
        .forEach(
            (peerKey, peer) ->
                peer.ports()
                    .keySet()
                    .forEach(
                        portKey -> {
                          String evidenceKey = EvidenceKey.of(key, peerKey, portKey);
                          unwrittenEvidence.remove(evidenceKey);
                          evidence.delete(evidenceKey);
                        }));
    learned.delete(key);
    return true;
  }

  private PolicySnapshot policy(String key) {
    PolicySnapshot policy = knownPolicies.get(key);
    if (policy == null) {
      policy = policies.get(key);
      knownPolicies.put(key, policy);
    }
    return policy;
  }

  private LearnedAllowList allowList(String key) {
    LearnedAllowList state = unwritten.isEmpty() ? null : unwritten.get(key);
    if (state != null) {
      return state;
    }
    state = allowLists.get(key);
    if (state == null) {
      state = learned.get(key);
      if (state != null) {
        allowLists.put(key, state);
      }
    }
    return state;
  }

  private void store(String key, LearnedAllowList state) {
    unconverged.stored(state);
    if (emission == ProposalEmission.AT_FLUSH) {
      unwritten.put(key, state);
    } else {
      learned.put(key, state);
    }
    allowLists.put(key, state);
  }

  private PortStats evidence(String evidenceKey) {
    PortStats stats = unwrittenEvidence.isEmpty() ? null : unwrittenEvidence.get(evidenceKey);
    return stats != null ? stats : evidence.get(evidenceKey);
  }

  /**
   * Removes the evidence of an address peer's port that was widened and adds it to {@code into}
   * (the widened rule's evidence of that port): its first seen, last seen and count stay on review.
   */
  private PortStats foldEvidence(String evidenceKey, PortStats into) {
    PortStats stats = evidence(evidenceKey);
    unwrittenEvidence.remove(evidenceKey);
    evidence.delete(evidenceKey);
    if (stats == null) {
      return into;
    }
    return into == null ? stats : into.plus(stats);
  }

  private void storeEvidence(String evidenceKey, PortStats stats) {
    if (emission == ProposalEmission.AT_FLUSH) {
      unwrittenEvidence.put(evidenceKey, stats);
    } else {
      evidence.put(evidenceKey, stats);
    }
  }

  /** Writes the allow-lists and evidence held since the last flush to the stores (AT_FLUSH). */
  private void writeUnwritten() {
    unwritten.forEach(learned::put);
    unwritten.clear();
    unwrittenEvidence.forEach(evidence::put);
    unwrittenEvidence.clear();
  }

  private ProposalSnapshot render(String key, TargetKey target, LearnedAllowList state) {
    return render(key, target, state, latestFlowTime);
  }

  private ProposalSnapshot render(
      String key, TargetKey target, LearnedAllowList state, Instant asOf) {
    return ProposalRenderer.render(
        target,
        state,
        (peerKey, portKey) -> evidence(EvidenceKey.of(key, peerKey, portKey)),
        convergence,
        asOf,
        ciliumEntities);
  }

  /**
   * Renders a target's allow-list as of {@code asOf}, stores it with whether that rendering
   * converged (and still marked dirty when {@code dirtyAfter}: evidence came after the change it
   * shows), and publishes it.
   */
  private void publish(
      String key,
      TargetKey target,
      LearnedAllowList state,
      Instant asOf,
      boolean dirtyAfter,
      long timestamp) {
    ProposalSnapshot snapshot = render(key, target, state.withEvidenceDirty(false), asOf);
    store(key, state.withEvidenceDirty(dirtyAfter).withConverged(converged(snapshot)));
    context.forward(new Record<>(key, new TargetOutput.Proposal(snapshot), timestamp));
  }

  private static boolean converged(ProposalSnapshot snapshot) {
    return snapshot.convergence() != null && snapshot.convergence().converged();
  }

  private void command(Record<String, TargetEvent> record, ControlCommand command) {
    if (command.type() == ControlCommand.Type.RESET_LEARNING) {
      forget(record.key());
      if (command.at() != null) {
        fences.put(record.key(), command.at());
        resetFences.put(record.key(), command.at().toEpochMilli());
      }
      metrics.proposalReset();
      LOG.info("learning of {} reset ({})", record.key(), command.reason());
      context.forward(
          new Record<>(record.key(), new TargetOutput.Proposal(null), record.timestamp()));
    }
  }

  private void observed(
      Record<String, TargetEvent> record, TargetKey target, Observation observation) {
    HttpRequest http = observation.flow().http();
    if (!l7Http && http != null && http.connectionSeen()) {
      // Only its request is new, and requests are not learned: counting it would count its
      // connection twice (evidence, violations), unlike before requests were published.
      return;
    }
    FlowRecord flow = FlowTimeBound.clamp(observation.flow(), record.timestamp());
    if (flow != observation.flow()) {
      metrics.futureFlowClamped();
      observation = new Observation(flow, observation.fallbackTarget(), observation.records());
    }
    if (latestFlowTime == null || flow.time().isAfter(latestFlowTime)) {
      latestFlowTime = flow.time();
    }
    PolicySnapshot policy = policy(record.key());
    if (flow.verdict() == Verdict.FORWARDED) {
      if (policy == null && beforeReset(record.key(), flow)) {
        metrics.learningSkipped(BEFORE_RESET);
      } else if (policy == null) {
        learn(record, target, flow);
      } else if (MonitorModeEvaluation.applies(policy)
          && monitor.denies(
              policy,
              target.direction(),
              flow,
              () -> nativePolicies.inNamespace(policy.namespace(), policy.name()))) {
        violation(record, policy, target, observation, Mode.monitor);
      }
      return;
    }
    Mode action = flow.verdict() == Verdict.DENIED ? Mode.protect : Mode.monitor;
    if (policy != null) {
      violation(record, policy, target, observation, action);
    } else if (observation.fallbackTarget() != null && !policiesRead) {
      // The fallback target has no policy either: counted as it would be there, with no loop.
      metrics.reattributed();
      metrics.unattributed("target-has-no-policy");
    } else if (observation.fallbackTarget() != null) {
      metrics.reattributed();
      context.forward(
          new Record<>(
              observation.fallbackTarget(),
              new TargetOutput.Reattribution(new Observation(flow, null, observation.records())),
              record.timestamp()));
    } else {
      metrics.unattributed("target-has-no-policy");
    }
  }

  /** Whether the flow was last seen before its target's reset: late, not learned again. */
  private boolean beforeReset(String key, FlowRecord flow) {
    Instant fence = fences.isEmpty() ? null : fences.get(key);
    return fence != null && flow.lastSeen().isBefore(fence);
  }

  /** Drops the fences that flow time has left behind by the horizon. */
  private void expireFences() {
    if (fences.isEmpty() || latestFlowTime == null) {
      return;
    }
    Instant oldest = latestFlowTime.minus(RESET_FENCE_HORIZON);
    fences
        .entrySet()
        .removeIf(
            e -> {
              if (!e.getValue().isBefore(oldest)) {
                return false;
              }
              resetFences.delete(e.getKey());
              return true;
            });
  }

  private void learn(Record<String, TargetEvent> record, TargetKey target, FlowRecord flow) {
    String key = record.key();
    AllowListLearner.Outcome outcome = learner.learn(allowList(key), target, flow);
    if (outcome instanceof AllowListLearner.Skipped skipped) {
      metrics.learningSkipped(skipped.reason());
      if (AllowListLearner.TOO_MANY_PEERS.equals(skipped.reason()) && capped.add(key)) {
        LOG.warn(
            "{} has {} peers, the most one target learns; new peers are not learned (counted as {}). Its "
                + "proposal is too large to review or store: write its policy by hand",
            key,
            AllowListLearner.MAX_PEERS,
            skipped.reason());
      }
      return;
    }
    AllowListLearner.Learned result = (AllowListLearner.Learned) outcome;
    metrics.learned(flow.count());
    String evidenceKey = EvidenceKey.of(key, result.peerKey(), result.portKey());
    PortStats stats = evidence(evidenceKey);
    for (String widened : result.widenedPeers()) {
      stats = foldEvidence(EvidenceKey.of(key, widened, result.portKey()), stats);
    }
    // A label-only peer became its workload's: its evidence, every port, moves to the workload.
    for (String port : result.relabeledPorts()) {
      String from = EvidenceKey.of(key, result.relabeledPeer(), port);
      if (port.equals(result.portKey())) {
        stats = foldEvidence(from, stats);
      } else {
        String to = EvidenceKey.of(key, result.peerKey(), port);
        PortStats moved = foldEvidence(from, evidence(to));
        if (moved != null) {
          storeEvidence(to, moved);
        }
      }
    }
    storeEvidence(
        evidenceKey,
        stats == null
            ? PortStats.first(
                flow.protocol(),
                flow.dstPort(),
                flow.firstSeen(),
                flow.lastSeen(),
                flow.count(),
                flow.sighting())
            : stats.observed(flow.firstSeen(), flow.lastSeen(), flow.count(), flow.sighting()));
    if (result.allowListChanged() && emission == ProposalEmission.AT_FLUSH) {
      // Rendered by the next flush as of now. A later flow of this target either changes the
      // allow-list again (a newer "now") or marks its evidence dirty (the flush renders it anyway).
      store(key, result.state().withEvidenceDirty(false));
      dirty.remove(key);
      changedSinceFlush.put(key, latestFlowTime);
    } else if (result.allowListChanged() && heldBack(key)) {
      // Published at the end of the interval with every change until then (or, after a restart, by
      // the evidence flush: the state is stored dirty).
      store(key, result.state().withEvidenceDirty(true));
      dirty.add(key);
      held.put(key, latestFlowTime);
      touchedSinceHeld.remove(key);
    } else if (result.allowListChanged()) {
      publish(key, target, result.state(), latestFlowTime, false, record.timestamp());
      dirty.remove(key);
      metrics.proposalEmitted();
    } else if (held.containsKey(key)) {
      // Stored dirty already; published as of its change, and dirty after that.
      touchedSinceHeld.add(key);
      if (result.peerEvidenceChanged()) {
        store(key, result.state().withEvidenceDirty(true));
      }
    } else if (result.peerEvidenceChanged()) {
      // New DNS names of a known outside peer: evidence, published with the next flush.
      store(key, result.state().withEvidenceDirty(true));
      dirty.add(key);
    } else if (!result.state().evidenceDirty()) {
      // Written once per flush interval, not per flow: later flows find it dirty already.
      store(key, result.state().withEvidenceDirty(true));
      dirty.add(key);
    }
  }

  /**
   * Whether this allow-list change waits: the target was published for a change in this interval.
   */
  private boolean heldBack(String key) {
    return !proposalInterval.isZero() && !publishedThisInterval.add(key);
  }

  /**
   * The end of a proposal interval (and the start of an evidence flush): publishes the targets held
   * back in it, each once, as of its last change.
   */
  private void publishHeld(long now) {
    publishedThisInterval.clear();
    for (Map.Entry<String, Instant> change : held.entrySet()) {
      String key = change.getKey();
      LearnedAllowList state = allowList(key);
      if (state == null) {
        continue;
      }
      boolean touched = touchedSinceHeld.contains(key);
      publish(key, TargetKey.parse(key), state, change.getValue(), touched, now);
      if (!touched) {
        dirty.remove(key);
      }
      // Published now: its next change within the coming interval waits as well.
      publishedThisInterval.add(key);
      metrics.proposalEmitted();
    }
    held.clear();
    touchedSinceHeld.clear();
  }

  private void violation(
      Record<String, TargetEvent> record,
      PolicySnapshot policy,
      TargetKey target,
      Observation observation,
      Mode action) {
    var violation =
        ViolationFactory.create(
            policy, target.direction(), observation.flow(), observation.records(), action);
    metrics.violation(action.value(), observation.records());
    context.forward(
        new Record<>(
            violation.policyKey(), new TargetOutput.Violation(violation), record.timestamp()));
  }

  /** Publishes the evidence of every target whose evidence changed since its last snapshot. */
  private void flushEvidence(long now) {
    publishChanged(now);
    publishHeld(now);
    for (String key : new ArrayList<>(dirty)) {
      LearnedAllowList state = allowList(key);
      if (state == null || !state.evidenceDirty()) {
        continue;
      }
      publish(key, TargetKey.parse(key), state, latestFlowTime, false, now);
      metrics.evidenceFlushed();
    }
    dirty.clear();
    expireFences();
    // The sweep reads the whole store.
    writeUnwritten();
    sweepConvergence(now);
    writeUnwritten();
  }

  /**
   * {@link ProposalEmission#AT_FLUSH}: publishes the allow-lists changed since the last flush, each
   * as of the flow time of its change, before the evidence flush (which renders dirty targets
   * again).
   */
  private void publishChanged(long now) {
    for (Map.Entry<String, Instant> changed : changedSinceFlush.entrySet()) {
      String key = changed.getKey();
      LearnedAllowList state = allowList(key);
      if (state == null || state.evidenceDirty()) {
        continue;
      }
      publish(key, TargetKey.parse(key), state, changed.getValue(), false, now);
      metrics.proposalEmitted();
    }
    changedSinceFlush.clear();
  }

  /**
   * Targets whose flows stopped still converge: once flow time has moved on by a sweep step, every
   * target whose quiet period has ended since is rendered, and published when it now converges.
   */
  private void sweepConvergence(long now) {
    if (latestFlowTime == null
        || lastSweepFlowTime != null
            && latestFlowTime.isBefore(lastSweepFlowTime.plus(convergenceSweepStep))) {
      return;
    }
    lastSweepFlowTime = latestFlowTime;
    Instant quietSince = latestFlowTime.minus(convergence.quietPeriod());
    if (!unconverged.mayBeDue(quietSince)) {
      return;
    }
    unconverged.clear();
    List<String> due = new ArrayList<>();
    try (KeyValueIterator<String, LearnedAllowList> all = learned.all()) {
      while (all.hasNext()) {
        KeyValue<String, LearnedAllowList> e = all.next();
        LearnedAllowList state = e.value;
        if (state != null
            && !state.converged()
            && (state.lastChange() == null || !state.lastChange().isAfter(quietSince))) {
          due.add(e.key);
        } else {
          unconverged.stored(state);
        }
      }
    }
    for (String key : due) {
      LearnedAllowList state = allowList(key);
      ProposalSnapshot snapshot = render(key, TargetKey.parse(key), state);
      if (converged(snapshot)) {
        store(key, state.withConverged(true));
        metrics.evidenceFlushed();
        context.forward(new Record<>(key, new TargetOutput.Proposal(snapshot), now));
      } else {
        // Not converged yet (too few observations so far): looked at again by the next sweep.
        unconverged.stored(state);
      }
    }
  }
}
