package io.kubewarden.networkenforcer.writer.policies;

import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processor's view of the cluster: every policy on {@code policies} keyed by target (tombstone
 * when it goes), and a ResetLearning on {@code control} when a person deletes a proposal.
 */
public final class PolicyPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyPublisher.class);

  private final Producer<String, byte[]> producer;
  private final Topic<String, PolicySnapshot> policies;
  private final Topic<String, ControlCommand> control;
  private final ClusterCache cache;
  private final MeterRegistry meters;
  private final Clock clock;
  private final BooleanSupplier leading;

  /** What was last published per target, so status-only updates publish nothing. */
  private final Map<String, PolicySnapshot> published = new ConcurrentHashMap<>();

  /** The target each published policy ({@code ns/name}) was published under, for its tombstone. */
  private final Map<String, TargetKey> targetOfPolicy = new ConcurrentHashMap<>();

  public PolicyPublisher(
      Producer<String, byte[]> producer,
      Topic<String, PolicySnapshot> policies,
      Topic<String, ControlCommand> control,
      ClusterCache cache,
      MeterRegistry meters,
      Clock clock,
      BooleanSupplier leading) {
    this.producer = producer;
    this.policies = policies;
    this.control = control;
    this.cache = cache;
    this.meters = meters;
    this.clock = clock;
    this.leading = leading;
  }

  public static PolicySnapshot snapshotOf(WorkloadNetworkPolicy wnp) {
    Map<String, String> labels = wnp.getMetadata().getLabels();
    Long generation = wnp.getMetadata().getGeneration();
    return new PolicySnapshot(
        wnp.getMetadata().getName(),
        wnp.getMetadata().getNamespace(),
        wnp.getSpec(),
        generation == null ? 0 : generation,
        labels == null ? null : labels.get(Labels.PROMOTED_FROM));
  }

  /**
   * A policy was created or changed. Throws when the record was not written, so the key is retried.
   */
  public void upsert(WorkloadNetworkPolicy wnp) {
    publish(wnp).ifPresent(Sends::await);
  }

  /**
   * Sends the policy's snapshot unless it is the one published last; marks it published once
   * written.
   */
  private Optional<Future<?>> publish(WorkloadNetworkPolicy wnp) {
    Optional<TargetKey> target =
        ClusterCache.targetOf(wnp.getMetadata().getNamespace(), wnp.getSpec());
    if (target.isEmpty()) {
      LOG.warn(
          "policy {}/{} has no complete targetRef and direction; not published",
          wnp.getMetadata().getNamespace(),
          wnp.getMetadata().getName());
      return Optional.empty();
    }
    PolicySnapshot snapshot = snapshotOf(wnp);
    String key = target.get().key();
    if (snapshot.equals(published.get(key))) {
      return Optional.empty();
    }
    targetOfPolicy.put(
        wnp.getMetadata().getNamespace() + "/" + wnp.getMetadata().getName(), target.get());
    return Optional.of(
        send(
            policies.name(),
            key,
            policies.valueSerde().serializer().serialize(policies.name(), snapshot),
            () -> {
              published.put(key, snapshot);
              meters
                  .counter("network.enforcer.writer.policies.published", "kind", "upsert")
                  .increment();
            }));
  }

  /**
   * A policy ({@code ns/name}) is gone: tombstone the target it was published under, unless another
   * policy still covers it. A delete nobody was leader for is caught by {@link #resync}.
   */
  public void deleted(String policyKey) {
    TargetKey target = targetOfPolicy.get(policyKey);
    if (target == null) {
      return;
    }
    Optional<WorkloadNetworkPolicy> other = cache.policyFor(target);
    if (other.isPresent()) {
      upsert(other.get());
    } else {
      Sends.await(tombstone(target.key()));
    }
    targetOfPolicy.remove(policyKey); // only now: a failed send is tried again with the key's retry
  }

  private Future<?> tombstone(String key) {
    published.remove(key);
    return send(
        policies.name(),
        key,
        null,
        () ->
            meters
                .counter("network.enforcer.writer.policies.published", "kind", "tombstone")
                .increment());
  }

  /** A person deleted the proposal of this target: learning for it starts over. */
  public void resetLearning(TargetKey target, String why) {
    resetLearning(target, why, Duration.ZERO);
  }

  /**
   * Resets learning of the target; the processor learns nothing of it last seen before now plus
   * {@code fencedAhead} (flows still on their way from pods that are going).
   */
  public void resetLearning(TargetKey target, String why, Duration fencedAhead) {
    ControlCommand reset =
        ControlCommand.resetLearning(target.key(), clock.instant().plus(fencedAhead), why);
    Sends.await(
        send(
            control.name(),
            target.key(),
            control.valueSerde().serializer().serialize(control.name(), reset),
            () -> {}));
    meters.counter("network.enforcer.writer.control.reset.learning").increment();
    LOG.info("learning of {} reset: {}", target.key(), why);
  }

  /**
   * On becoming leader: publish every policy and tombstone every key of the topic that has no
   * policy any more, so the topic matches the cluster even after changes nobody was leader for.
   */
  public void resync(Collection<WorkloadNetworkPolicy> live, Set<String> keysOnTopic) {
    published.clear();
    targetOfPolicy.clear();
    Set<String> liveKeys = new HashSet<>();
    List<Future<?>> sends = new ArrayList<>();
    for (WorkloadNetworkPolicy wnp : live) {
      ClusterCache.targetOf(wnp.getMetadata().getNamespace(), wnp.getSpec())
          .ifPresent(t -> liveKeys.add(t.key()));
      publish(wnp).ifPresent(sends::add);
    }
    int stale = 0;
    for (String key : keysOnTopic) {
      if (!liveKeys.contains(key)) {
        sends.add(tombstone(key));
        stale++;
      }
    }
    producer.flush();
    sends.forEach(Sends::await);
    LOG.info(
        "policies topic resynced: {} policies published, {} stale targets tombstoned",
        liveKeys.size(),
        stale);
  }

  /**
   * Sends one record; {@code written} runs once the broker has it. A failure is counted and logged
   * here.
   */
  private Future<?> send(String topic, String key, byte[] value, Runnable written) {
    if (!leading.getAsBoolean()) {
      // The topics are the leader's view of the cluster; a former leader must not add to them.
      throw new NotLeaderException("publish " + key + " to " + topic);
    }
    return producer.send(
        new ProducerRecord<>(topic, key, value),
        (md, e) -> {
          if (e != null) {
            meters.counter("network.enforcer.writer.publish.failures", "topic", topic).increment();
            LOG.error("cannot publish {} to {}: {}", key, topic, e.toString());
          } else {
            written.run();
          }
        });
  }
}
