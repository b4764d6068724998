package io.kubewarden.networkenforcer.common.topics;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;

/**
 * A topic with its name, serdes and retention rules: the single definition producers, consumers,
 * the topology and topic creation share.
 */
public record Topic<K, V>(
    String name,
    Serde<K> keySerde,
    Serde<V> valueSerde,
    boolean compacted,
    Optional<Duration> retention) {

  /** The topic to create, with its cleanup policy, retention and {@link MinInSyncReplicas}. */
  public NewTopic newTopic(int partitions, short replicationFactor) {
    Map<String, String> configs = new HashMap<>();
    configs.put(
        TopicConfig.CLEANUP_POLICY_CONFIG,
        compacted ? TopicConfig.CLEANUP_POLICY_COMPACT : TopicConfig.CLEANUP_POLICY_DELETE);
    retention.ifPresent(
        r -> configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(r.toMillis())));
    configs.put(
        TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
        Integer.toString(MinInSyncReplicas.of(replicationFactor)));
    return new NewTopic(name, partitions, replicationFactor).configs(configs);
  }

  @Override
  public String toString() {
    return name;
  }
}
