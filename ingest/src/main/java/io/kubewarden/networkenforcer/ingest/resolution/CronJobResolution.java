package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A Job's pod belongs to its CronJob: a CronJob is a stable workload whose runs' pods carry its job
 * template's labels. The CronJob's selector is those labels (from the CronJob's {@code
 * jobTemplate.spec.template.metadata.labels}, or when the CronJob is not in the view, the pod's own
 * labels), never the labels the Job controller adds per run ({@code job-name}, {@code
 * controller-uid}, {@code batch.kubernetes.io/*}), so every run matches the same selector.
 *
 * <p>A Job without a CronJob is not a workload: it runs once, and its pods' labels are usually the
 * per-run ones only. It is dropped ({@code not-a-workload}), unless it opted in as a peer with
 * stable labels of its own ({@link StandaloneJobPeer}).
 */
public final class CronJobResolution {
  /** Kubernetes names a CronJob's Jobs {@code <cronjob>-<scheduled time in minutes>}. */
  private static final Pattern SCHEDULED_JOB = Pattern.compile("(.+)-\\d{8,10}");

  private CronJobResolution() {}

  /** Labels the Job controller sets on each run's pods: never part of a CronJob's selector. */
  public static boolean isPerRunLabel(String key) {
    return key.equals("job-name")
        || key.equals("controller-uid")
        || key.startsWith("batch.kubernetes.io/");
  }

  /** The labels without the per-run ones. */
  public static Map<String, String> stableLabels(Map<String, String> labels) {
    Map<String, String> out = new TreeMap<>();
    if (labels != null) {
      labels.forEach(
          (k, v) -> {
            if (!isPerRunLabel(k)) {
              out.put(k, v);
            }
          });
    }
    return out;
  }

  /** The CronJob's selector: its job template's stable labels; empty when there are none. */
  public static Optional<LabelSelector> selector(CronJob cronJob) {
    ObjectMeta meta =
        cronJob.getSpec() == null
                || cronJob.getSpec().getJobTemplate() == null
                || cronJob.getSpec().getJobTemplate().getSpec() == null
                || cronJob.getSpec().getJobTemplate().getSpec().getTemplate() == null
            ? null
            : cronJob.getSpec().getJobTemplate().getSpec().getTemplate().getMetadata();
    return selector(meta == null ? null : meta.getLabels());
  }

  /** A selector of the stable labels; empty when none is left (it would select every pod). */
  public static Optional<LabelSelector> selector(Map<String, String> labels) {
    Map<String, String> stable = stableLabels(labels);
    return stable.isEmpty()
        ? Optional.empty()
        : Optional.of(new LabelSelectorBuilder().withMatchLabels(stable).build());
  }

  /**
   * The CronJob that owns the Job named {@code jobName}: its controller reference when the Job is
   * in the view, otherwise a CronJob in the view whose scheduled-Job name pattern fits.
   */
  public static Optional<String> cronJobOf(ClusterView view, String namespace, String jobName) {
    Optional<Job> job = view.job(namespace, jobName);
    if (job.isPresent()) {
      List<OwnerReference> refs = job.get().getMetadata().getOwnerReferences();
      return refs == null
          ? Optional.empty()
          : refs.stream()
              .filter(r -> Boolean.TRUE.equals(r.getController()) && "CronJob".equals(r.getKind()))
              .map(OwnerReference::getName)
              .findFirst();
    }
    var m = SCHEDULED_JOB.matcher(jobName);
    if (m.matches() && view.cronJob(namespace, m.group(1)).isPresent()) {
      return Optional.of(m.group(1));
    }
    return Optional.empty();
  }
}
