package io.kubewarden.networkenforcer.processor.evaluation;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.NativePolicySnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's Kubernetes NetworkPolicies, from the global store over the {@code native-policies}
 * topic: every instance holds all of them (they are few and small), so a target finds the policies
 * of its namespace whatever partition it is on.
 */
public final class NativePolicies {
  private static final Logger LOG = LoggerFactory.getLogger(NativePolicies.class);
  private static final StringSerializer KEYS = new StringSerializer();

  private final ReadOnlyKeyValueStore<String, ValueAndTimestamp<NativePolicySnapshot>> store;

  public NativePolicies(
      ReadOnlyKeyValueStore<String, ValueAndTimestamp<NativePolicySnapshot>> store) {
    this.store = store;
  }

  /** The specs of every NetworkPolicy in the namespace except {@code excludedName}. */
  public List<NetworkPolicySpec> inNamespace(String namespace, String excludedName) {
    List<NetworkPolicySpec> out = new ArrayList<>();
    if (store == null || namespace == null) {
      return out;
    }
    try (KeyValueIterator<String, ValueAndTimestamp<NativePolicySnapshot>> it =
        store.prefixScan(namespace + "/", KEYS)) {
      while (it.hasNext()) {
        var e = it.next();
        NativePolicySnapshot p = e.value == null ? null : e.value.value();
        if (p != null && namespace.equals(p.namespace()) && !p.name().equals(excludedName)) {
          out.add(p.spec());
        }
      }
    }
    return out;
  }

  /**
   * The value serde of the global store: a record that cannot be read is logged and treated as
   * absent (a global store has no dead-letter path, and one bad record must not stop the instance).
   */
  public static Serde<NativePolicySnapshot> lenientSerde(Serde<NativePolicySnapshot> strict) {
    Deserializer<NativePolicySnapshot> lenient =
        (topic, bytes) -> {
          if (bytes == null) {
            return null;
          }
          try {
            return Json.mapper().readValue(bytes, NativePolicySnapshot.class);
          } catch (IOException | RuntimeException e) {
            LOG.warn("unreadable record on {} ignored: {}", topic, e.toString());
            return null;
          }
        };
    return Serdes.serdeFrom(strict.serializer(), lenient);
  }
}
