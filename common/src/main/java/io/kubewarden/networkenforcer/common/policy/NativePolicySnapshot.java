package io.kubewarden.networkenforcer.common.policy;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import java.util.Objects;

/**
 * A Kubernetes NetworkPolicy as it is in the cluster (any author), value of the compacted {@code
 * native-policies} topic keyed {@code <namespace>/<name>} (tombstone when it goes). Monitor mode
 * needs them: policies are additive, so a flow another NetworkPolicy selecting the same pod allows
 * is allowed once the monitored policy is enforced.
 */
public record NativePolicySnapshot(String namespace, String name, NetworkPolicySpec spec) {

  public NativePolicySnapshot {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(spec, "spec");
  }

  /** The topic key: {@code <namespace>/<name>}, so a namespace's policies share a key prefix. */
  public String key() {
    return keyOf(namespace, name);
  }

  public static String keyOf(String namespace, String name) {
    return namespace + "/" + name;
  }
}
