package io.kubewarden.networkenforcer.writer.policies;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.NativePolicySnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.Reconciler;
import io.kubewarden.networkenforcer.writer.reconcile.Result;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every Kubernetes NetworkPolicy of the cluster (whoever made it) on {@code native-policies}, keyed
 * {@code ns/name}, tombstoned when it goes: monitor mode evaluates the union of the policies on a
 * pod, and the processor only knows what is on a topic. A reconciler of its own queue: the informer
 * only queues keys, a reconcile publishes what the informer's store holds for the key (a tombstone
 * when nothing), and a send that fails is retried for that key.
 */
public final class NativePolicyPublisher implements Reconciler<ObjectKey> {
  private static final Logger LOG = LoggerFactory.getLogger(NativePolicyPublisher.class);

  private final Producer<String, byte[]> producer;
  private final Topic<String, NativePolicySnapshot> topic;
  private final Function<ObjectKey, Optional<NetworkPolicy>> live;
  private final MeterRegistry meters;

  /** What was last written per key, so resync events and status-only updates publish nothing. */
  private final Map<String, NativePolicySnapshot> published = new ConcurrentHashMap<>();

  /**
   * @param live the informer store's NetworkPolicy of a key
   */
  public NativePolicyPublisher(
      Producer<String, byte[]> producer,
      Topic<String, NativePolicySnapshot> topic,
      Function<ObjectKey, Optional<NetworkPolicy>> live,
      MeterRegistry meters) {
    this.producer = producer;
    this.topic = topic;
    this.live = live;
    this.meters = meters;
  }

  @Override
  public Result reconcile(ObjectKey key) {
    String topicKey = NativePolicySnapshot.keyOf(key.namespace(), key.name());
    Optional<NetworkPolicy> np = live.apply(key);
    if (np.isEmpty()) {
      published.remove(topicKey);
      Sends.await(send(topicKey, null));
      return Result.done();
    }
    if (np.get().getSpec() == null) {
      return Result.done();
    }
    NativePolicySnapshot snapshot =
        new NativePolicySnapshot(key.namespace(), key.name(), np.get().getSpec());
    if (!snapshot.equals(published.get(topicKey))) {
      Sends.await(send(topicKey, snapshot));
      published.put(topicKey, snapshot);
    }
    return Result.done();
  }

  /**
   * The keys the topic still holds but the cluster no longer has (deleted while no writer ran):
   * queued, their reconcile tombstones them.
   */
  public static Set<ObjectKey> stale(Collection<NetworkPolicy> live, Set<String> keysOnTopic) {
    Set<String> liveKeys =
        live.stream()
            .map(
                np ->
                    NativePolicySnapshot.keyOf(
                        np.getMetadata().getNamespace(), np.getMetadata().getName()))
            .collect(Collectors.toSet());
    return keysOnTopic.stream()
        .filter(k -> !liveKeys.contains(k) && k.indexOf('/') > 0 && !k.endsWith("/"))
        .map(ObjectKey::parse)
        .collect(Collectors.toSet());
  }

  private Future<?> send(String key, NativePolicySnapshot value) {
    byte[] bytes =
        value == null ? null : topic.valueSerde().serializer().serialize(topic.name(), value);
    return producer.send(
        new ProducerRecord<>(topic.name(), key, bytes),
        (md, e) -> {
          if (e != null) {
            meters
                .counter("network.enforcer.writer.publish.failures", "topic", topic.name())
                .increment();
            LOG.error("cannot publish {} to {}: {}", key, topic.name(), e.toString());
          }
        });
  }
}
