package io.kubewarden.networkenforcer.writer.policies;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.kubewarden.networkenforcer.common.policy.NativePolicySnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every Kubernetes NetworkPolicy of the cluster (whoever made it) on {@code native-policies},
 * keyed {@code ns/name}, tombstoned when it goes: monitor mode evaluates the union of the policies
 * on a pod, and the processor only knows what is on a topic.
 */
public final class NativePolicyPublisher implements ResourceEventHandler<NetworkPolicy> {
  private static final Logger LOG = LoggerFactory.getLogger(NativePolicyPublisher.class);

  private final Producer<String, byte[]> producer;
  private final Topic<String, NativePolicySnapshot> topic;
  private final MeterRegistry meters;
  /** What was last published per key, so resync events and status-only updates publish nothing. */
  private final Map<String, NativePolicySnapshot> published = new ConcurrentHashMap<>();

  public NativePolicyPublisher(Producer<String, byte[]> producer, Topic<String, NativePolicySnapshot> topic,
      MeterRegistry meters) {
    this.producer = producer;
    this.topic = topic;
    this.meters = meters;
  }

  @Override
  public void onAdd(NetworkPolicy np) {
    upsert(np);
  }

  @Override
  public void onUpdate(NetworkPolicy old, NetworkPolicy np) {
    upsert(np);
  }

  @Override
  public void onDelete(NetworkPolicy np, boolean deletedFinalStateUnknown) {
    String key = NativePolicySnapshot.keyOf(np.getMetadata().getNamespace(), np.getMetadata().getName());
    published.remove(key);
    send(key, null);
  }

  private void upsert(NetworkPolicy np) {
    if (np.getSpec() == null) {
      return;
    }
    NativePolicySnapshot snapshot = new NativePolicySnapshot(np.getMetadata().getNamespace(),
        np.getMetadata().getName(), np.getSpec());
    if (Objects.equals(published.put(snapshot.key(), snapshot), snapshot)) {
      return;
    }
    send(snapshot.key(), snapshot);
  }

  /** Tombstones what the topic still holds but the cluster no longer has (deleted while no writer ran). */
  public void resync(Collection<NetworkPolicy> live, Set<String> keysOnTopic) {
    Set<String> liveKeys = new HashSet<>();
    live.forEach(np -> liveKeys.add(NativePolicySnapshot.keyOf(np.getMetadata().getNamespace(),
        np.getMetadata().getName())));
    keysOnTopic.stream().filter(k -> !liveKeys.contains(k)).forEach(k -> send(k, null));
  }

  private void send(String key, NativePolicySnapshot value) {
    byte[] bytes = value == null ? null : topic.valueSerde().serializer().serialize(topic.name(), value);
    producer.send(new ProducerRecord<>(topic.name(), key, bytes), (md, e) -> {
      if (e != null) {
        meters.counter("network.enforcer.writer.publish.failures", "topic", topic.name()).increment();
        LOG.error("cannot publish {} to {}: {}", key, topic.name(), e.toString());
      }
    });
  }
}
