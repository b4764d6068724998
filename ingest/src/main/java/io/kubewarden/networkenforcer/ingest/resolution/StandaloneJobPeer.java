package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.policy.Labels;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The rule for a Job without a CronJob. Such a Job runs once under a name of its own, and its pods
 * usually carry only the labels the Job controller adds per run ({@code job-name}, {@code
 * controller-uid} and their {@code batch.kubernetes.io/} forms): it is no workload and is dropped
 * ({@code not-a-workload}).
 *
 * <p>Unless it carries stable labels of its own and a person says so: when its pod template has the
 * label {@value Labels#JOB_PEER}{@code : <name>} (a DNS label naming it, the same on every run) and
 * at least one other label that is neither per-run nor generated, its pods are a <em>peer</em>: the
 * workloads it talks to learn a rule for the pods with those labels (the opt-in label included, so
 * nothing else matches), keyed {@code <ns>/Job/<name>}. The Job gets no proposal of its own:
 * nothing stable would own it or collect its policy when the Job is gone. Without the opt-in, or
 * with only per-run labels, it stays a drop: a per-run label in a selector would match one run
 * only.
 */
public final class StandaloneJobPeer {
  /**
   * The kind a peer key names; not a {@link
   * io.kubewarden.networkenforcer.common.workload.WorkloadKind}.
   */
  public static final String KIND = FlowEndpoint.JOB_PEER_KIND;

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private StandaloneJobPeer() {}

  /**
   * The peer's selector when the pod opted in and has stable labels of its own; empty otherwise.
   */
  public static Optional<LabelSelector> selector(Map<String, String> podLabels) {
    if (podLabels == null || name(podLabels).isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> stable = new TreeMap<>();
    podLabels.forEach(
        (k, v) -> {
          if (!CronJobResolution.isPerRunLabel(k) && !GeneratedPodLabels.isGenerated(k)) {
            stable.put(k, v);
          }
        });
    if (stable.size() < 2) {
      return Optional.empty(); // only the opt-in itself: nothing of its own to select it by
    }
    return Optional.of(new LabelSelectorBuilder().withMatchLabels(stable).build());
  }

  /** The name the opt-in gives, when it is a DNS label. */
  static Optional<String> name(Map<String, String> podLabels) {
    String name = podLabels.get(Labels.JOB_PEER);
    return name != null && DNS_LABEL.matcher(name).matches() ? Optional.of(name) : Optional.empty();
  }

  /**
   * The peer end for a pod of a Job without a CronJob, ready for the pod's details; empty when the
   * rule does not let it in.
   */
  public static Optional<FlowEndpoint.Builder> endpoint(
      String namespace, Map<String, String> podLabels, Map<String, String> namespaceLabels) {
    return selector(podLabels)
        .map(
            selector ->
                FlowEndpoint.builder()
                    .namespace(namespace)
                    // No workload kind: the Job is a peer only, never a target of its own.
                    .workload(null, name(podLabels).orElseThrow())
                    .workloadSelector(selector)
                    .podLabels(podLabels)
                    .namespaceLabels(namespaceLabels));
  }
}
