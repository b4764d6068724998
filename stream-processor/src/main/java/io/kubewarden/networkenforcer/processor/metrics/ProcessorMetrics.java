package io.kubewarden.networkenforcer.processor.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every number of the processor that a user would want, as Micrometer counters (exposed as
 * Prometheus by the CLI). Counters with a {@code reason} tag say why something was not used.
 *
 * <p>Every counter is resolved once (fixed ones here, tagged ones on their first use, then kept in
 * a map keyed by the tag value): no registry lookup and no allocation per record.
 */
public final class ProcessorMetrics {
  private static final String PREFIX = "network_enforcer.processor.";

  private final MeterRegistry registry;
  private final Counter flowsReceived;
  private final Counter proposalsEmitted;
  private final Counter proposalTombstones;
  private final Counter evidenceFlushes;
  private final Counter undetermined;
  private final Counter reattributed;
  private final Counter evaluationsFailed;
  private final Counter learned;
  private final Counter ingressObservations;
  private final Counter egressObservations;
  private final Counter combinedObservations;
  private final Map<String, Counter> ignored = new ConcurrentHashMap<>();
  private final Map<String, Counter> skipped = new ConcurrentHashMap<>();
  private final Map<String, Counter> violations = new ConcurrentHashMap<>();
  private final Map<String, Counter> unattributed = new ConcurrentHashMap<>();
  private final Map<String, Counter> deadLettered = new ConcurrentHashMap<>();

  public ProcessorMetrics(MeterRegistry registry) {
    this.registry = registry;
    flowsReceived =
        Counter.builder(PREFIX + "flows.received")
            .description("flow records read")
            .register(registry);
    proposalsEmitted =
        Counter.builder(PREFIX + "proposals.emitted")
            .description("proposal snapshots written because an allow-list changed")
            .register(registry);
    proposalTombstones =
        Counter.builder(PREFIX + "proposals.reset")
            .description("proposal tombstones written on ResetLearning")
            .register(registry);
    evidenceFlushes =
        Counter.builder(PREFIX + "evidence.flushed")
            .description("proposal snapshots written by the evidence punctuator")
            .register(registry);
    undetermined =
        Counter.builder(PREFIX + "evaluations.undetermined")
            .description("monitor-mode evaluations that could not be decided from the flow")
            .register(registry);
    reattributed =
        Counter.builder(PREFIX + "denies.reattributed")
            .description("denies of unknown reporter passed from the destination to the source")
            .register(registry);
    evaluationsFailed = registry.counter(PREFIX + "evaluations.failed");
    learned =
        Counter.builder(PREFIX + "observations.learned")
            .description(
                "observations a target learned from, an aggregate counting as its flow count")
            .register(registry);
    ingressObservations = registry.counter(PREFIX + "observations", "direction", "Ingress");
    egressObservations = registry.counter(PREFIX + "observations", "direction", "Egress");
    combinedObservations =
        Counter.builder(PREFIX + "observations.combined")
            .description(
                "observation records the combiner sent to their targets, each standing for one or"
                    + " more flow records' observations")
            .register(registry);
  }

  private Counter tagged(Map<String, Counter> cache, String name, String tag, String value) {
    Counter c = cache.get(value);
    return c != null
        ? c
        : cache.computeIfAbsent(value, v -> registry.counter(PREFIX + name, tag, v));
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * An observation of a flow dated after its record was published (beyond the tolerance), clamped.
   */
  public void futureFlowClamped() {
    registry.counter(PREFIX + "observations.future.clamped").increment();
  }

  public void flowReceived() {
    flowsReceived.increment();
  }

  /** One observation per target a flow produced. */
  public void observation(String direction) {
    switch (direction) {
      case "Ingress" -> ingressObservations.increment();
      case "Egress" -> egressObservations.increment();
      default -> registry.counter(PREFIX + "observations", "direction", direction).increment();
    }
  }

  /**
   * Combined observations sent on to their targets: against {@code observations}, how well the
   * combiner folds.
   */
  public void observationsCombined(int n) {
    combinedObservations.increment(n);
  }

  /** A flow (or one side of it) that produced no observation. */
  public void flowIgnored(String reason) {
    tagged(ignored, "flows.ignored", "reason", reason).increment();
  }

  /** A flow the monitored policy denies but another NetworkPolicy of the namespace allows. */
  public void allowedByAnotherPolicy() {
    registry.counter(PREFIX + "evaluations.allowed.by.other.policy").increment();
  }

  /** An observation that a target could not learn from, with the reason. */
  public void learningSkipped(String reason) {
    tagged(skipped, "learning.skipped", "reason", reason).increment();
  }

  /** A target learned from an observation that stands for {@code flows} flows. */
  public void learned(long flows) {
    learned.increment(flows);
  }

  public void proposalEmitted() {
    proposalsEmitted.increment();
  }

  public void proposalReset() {
    proposalTombstones.increment();
  }

  public void evidenceFlushed() {
    evidenceFlushes.increment();
  }

  /**
   * @param records the flow records the violation stands for: each is one violation
   */
  public void violation(String action, long records) {
    tagged(violations, "violations", "action", action).increment(records);
  }

  public void undetermined() {
    undetermined.increment();
  }

  public void evaluationFailed() {
    evaluationsFailed.increment();
  }

  /** A deny that no policy could be found for: counted, never dropped silently. */
  public void unattributed(String reason) {
    tagged(unattributed, "denies.unattributed", "reason", reason).increment();
  }

  public void reattributed() {
    reattributed.increment();
  }

  public void deadLettered(String topic) {
    tagged(deadLettered, "dead.lettered", "topic", topic).increment();
  }

  /**
   * Proposal records this processor has handed to the proposals topic: snapshots of a changed
   * allow-list, snapshots of flushed evidence and ResetLearning tombstones. Every instance on one
   * registry reads the same counters (Micrometer keeps one meter per name and tags).
   */
  public long proposalsWritten() {
    return Math.round(
        proposalsEmitted.count() + evidenceFlushes.count() + proposalTombstones.count());
  }

  /**
   * Why flows taught nothing, from every instance on this registry: {@code flows.ignored} and
   * {@code learning.skipped} summed per reason (a counter without one is "other"), reasons that
   * counted only, in reason order.
   */
  public Map<String, Long> notLearnedByReason() {
    Map<String, Long> out = new TreeMap<>();
    for (String name : List.of("flows.ignored", "learning.skipped")) {
      for (Counter c : registry.find(PREFIX + name).counters()) {
        String reason = c.getId().getTag("reason");
        if (c.count() > 0) {
          out.merge(reason == null ? "other" : reason, Math.round(c.count()), Long::sum);
        }
      }
    }
    return out;
  }

  /**
   * A counter summed over the tags not given, for tests and health checks; 0 when it never counted.
   */
  public double count(String name, String... tags) {
    return registry.find(PREFIX + name).tags(tags).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }
}
