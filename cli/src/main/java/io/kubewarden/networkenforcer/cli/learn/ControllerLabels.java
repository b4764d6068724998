package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.ingest.resolution.GeneratedPodLabels;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Pod labels that controllers or injectors add to each pod and that a workload's {@code
 * spec.selector} therefore never names. A selector learned from a capture must leave them out, or
 * it would match only one ReplicaSet, revision or pod.
 */
public final class ControllerLabels {
  /** Exact keys added by Deployment, StatefulSet, DaemonSet, Job and the Istio injector. */
  static final Set<String> GENERATED = GeneratedPodLabels.KEYS;

  private ControllerLabels() {}

  public static boolean isGenerated(String key) {
    return GENERATED.contains(key);
  }

  /** The labels a selector may use: everything but the generated ones. */
  public static Map<String, String> selectable(Map<String, String> podLabels) {
    Map<String, String> out = new TreeMap<>();
    podLabels.forEach(
        (k, v) -> {
          if (!isGenerated(k)) {
            out.put(k, v);
          }
        });
    return out;
  }
}
