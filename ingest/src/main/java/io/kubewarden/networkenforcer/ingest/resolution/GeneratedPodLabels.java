package io.kubewarden.networkenforcer.ingest.resolution;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Pod labels that controllers or injectors add to each pod and that a workload's {@code
 * spec.selector} therefore never names. A selector inferred from pod labels must leave them out, or
 * it would match only one ReplicaSet, revision or pod.
 */
public final class GeneratedPodLabels {
  /** Exact keys added by Deployment, StatefulSet, DaemonSet, Job and the Istio injector. */
  public static final Set<String> KEYS =
      Set.of(
          "pod-template-hash",
          "controller-revision-hash",
          "pod-template-generation",
          "statefulset.kubernetes.io/pod-name",
          "apps.kubernetes.io/pod-index",
          "controller-uid",
          "job-name",
          "batch.kubernetes.io/controller-uid",
          "batch.kubernetes.io/job-name",
          "batch.kubernetes.io/job-completion-index",
          "security.istio.io/tlsMode",
          "service.istio.io/canonical-name",
          "service.istio.io/canonical-revision");

  private GeneratedPodLabels() {}

  public static boolean isGenerated(String key) {
    return KEYS.contains(key);
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
