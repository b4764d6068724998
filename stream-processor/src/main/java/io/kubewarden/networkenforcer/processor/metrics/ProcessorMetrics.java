package io.kubewarden.networkenforcer.processor.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Every number of the processor that a user would want, as Micrometer counters (exposed as
 * Prometheus by the CLI). Counters with a {@code reason} tag say why something was not used.
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

  public ProcessorMetrics(MeterRegistry registry) {
    this.registry = registry;
    flowsReceived = Counter.builder(PREFIX + "flows.received").description("flow records read").register(registry);
    proposalsEmitted = Counter.builder(PREFIX + "proposals.emitted")
        .description("proposal snapshots written because an allow-list changed").register(registry);
    proposalTombstones = Counter.builder(PREFIX + "proposals.reset")
        .description("proposal tombstones written on ResetLearning").register(registry);
    evidenceFlushes = Counter.builder(PREFIX + "evidence.flushed")
        .description("proposal snapshots written by the evidence punctuator").register(registry);
    undetermined = Counter.builder(PREFIX + "evaluations.undetermined")
        .description("monitor-mode evaluations that could not be decided from the flow").register(registry);
    reattributed = Counter.builder(PREFIX + "denies.reattributed")
        .description("denies of unknown reporter passed from the destination to the source").register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  public void flowReceived() {
    flowsReceived.increment();
  }

  /** One observation per target a flow produced. */
  public void observation(String direction) {
    registry.counter(PREFIX + "observations", "direction", direction).increment();
  }

  /** A flow (or one side of it) that produced no observation. */
  public void flowIgnored(String reason) {
    registry.counter(PREFIX + "flows.ignored", "reason", reason).increment();
  }

  /** An observation that a target could not learn from. */
  /** A flow the monitored policy denies but another NetworkPolicy of the namespace allows. */
  public void allowedByAnotherPolicy() {
    registry.counter(PREFIX + "evaluations.allowed.by.other.policy").increment();
  }

  public void learningSkipped(String reason) {
    registry.counter(PREFIX + "learning.skipped", "reason", reason).increment();
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

  public void violation(String action) {
    registry.counter(PREFIX + "violations", "action", action).increment();
  }

  public void undetermined() {
    undetermined.increment();
  }

  public void evaluationFailed() {
    registry.counter(PREFIX + "evaluations.failed").increment();
  }

  /** A deny that no policy could be found for: counted, never dropped silently. */
  public void unattributed(String reason) {
    registry.counter(PREFIX + "denies.unattributed", "reason", reason).increment();
  }

  public void reattributed() {
    reattributed.increment();
  }

  public void deadLettered(String topic) {
    registry.counter(PREFIX + "dead.lettered", "topic", topic).increment();
  }

  /** A counter summed over the tags not given, for tests and health checks; 0 when it never counted. */
  public double count(String name, String... tags) {
    return registry.find(PREFIX + name).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
  }
}
