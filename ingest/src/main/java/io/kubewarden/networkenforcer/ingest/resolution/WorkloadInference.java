package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The last resort when neither the cluster view nor the flow record names a pod's workload (Cilium
 * before 1.15, field-masked exports, remote endpoints, pods deleted before their flows arrived):
 * the workload is read from the controller suffixes of the pod name and the selector is the pod's
 * non-generated labels. The endpoint is marked {@link FlowEndpoint#inferred()}.
 *
 * <p>Suffixes follow the Kubernetes controllers: a Deployment pod is {@code
 * <deployment>-<pod-template-hash>-<5 chars>}, a StatefulSet pod {@code <name>-<ordinal>}, a
 * DaemonSet or Job pod {@code <name>-<5 chars>}; generated parts use Kubernetes' safe alphabet
 * (consonants and the digits 2, 4-9), which names written by people rarely do. A lone suffix is a
 * DaemonSet only when the labels say so ({@code pod-template-generation}, {@code
 * controller-revision-hash}) and a Job when they say so; when they say neither, or nothing
 * selectable is left, the pod is dropped as {@link DropReason#AMBIGUOUS_WORKLOAD} rather than
 * learned under a guessed workload; such a drop carries the end as its labels know it ({@link
 * LabelOnlyPeer}), which the parsers keep as the peer of a known workload.
 */
public final class WorkloadInference {
  /**
   * Marks a workload object of a synthetic cluster view (built from a capture) whose kind, name and
   * selector were inferred; endpoints resolved to it carry the inferred mark.
   */
  public static final String INFERRED_OBJECT_ANNOTATION = Labels.PREFIX + "inferred";

  private static final String SAFE = "[bcdfghjklmnpqrstvwxz2456789]";
  private static final Pattern DEPLOYMENT_POD =
      Pattern.compile("^(.+)-(" + SAFE + "{6,10})-(" + SAFE + "{5})$");
  private static final Pattern LONE_SUFFIX_POD = Pattern.compile("^(.+)-(" + SAFE + "{5})$");
  private static final Pattern STATEFUL_SET_POD = Pattern.compile("^(.+)-(\\d{1,5})$");

  /**
   * A Goldmane aggregated name's prefix ending in something hash-like (letters and digits, at least
   * one digit): a Deployment's ReplicaSet. The {@code *} already proves a controller made the pod,
   * so this is looser than the pod-name patterns.
   */
  private static final Pattern REPLICA_SET_PREFIX = Pattern.compile("^(.+)-([a-z0-9]{5,10})$");

  /** CronJob jobs are named {@code <cronjob>-<minutes since epoch>}. */
  private static final Pattern CRON_JOB_SUFFIX = Pattern.compile("^\\d{8,10}$");

  private final ClusterView view;

  public WorkloadInference(ClusterView view) {
    this.view = view;
  }

  /** What the name and labels say about the owner: a workload guess or why there is none. */
  public record Guess(WorkloadKind kind, String name, DropReason dropReason) {
    static Guess of(WorkloadKind kind, String name) {
      return new Guess(kind, name, null);
    }

    static Guess none(DropReason reason) {
      return new Guess(null, null, reason);
    }

    public boolean found() {
      return kind != null;
    }
  }

  /**
   * The workload a pod belongs to, judged by its name alone plus its labels.
   *
   * @param podName a pod name, or a Goldmane aggregated name {@code <generateName>*}
   * @param podLabels the pod's labels (plain {@code key=value}, no provider prefix)
   */
  public static Guess guess(String podName, Map<String, String> podLabels) {
    if (isJobPod(podLabels)) {
      return Guess.none(DropReason.NOT_A_WORKLOAD);
    }
    boolean daemonSetLabels =
        podLabels.containsKey("pod-template-generation")
            || podLabels.containsKey("controller-revision-hash")
                && !podLabels.containsKey("statefulset.kubernetes.io/pod-name");
    if (podName.endsWith("*")) {
      return guessFromGenerateName(
          podName.substring(0, podName.length() - 1), podLabels, daemonSetLabels);
    }
    Matcher deployment = DEPLOYMENT_POD.matcher(podName);
    if (deployment.matches()) {
      if (CRON_JOB_SUFFIX.matcher(deployment.group(2)).matches()) {
        return Guess.none(DropReason.NOT_A_WORKLOAD);
      }
      String hash = podLabels.get("pod-template-hash");
      if (hash != null && !hash.equals(deployment.group(2))) {
        return Guess.none(DropReason.AMBIGUOUS_WORKLOAD);
      }
      return Guess.of(WorkloadKind.Deployment, deployment.group(1));
    }
    Matcher ordinal = STATEFUL_SET_POD.matcher(podName);
    if (ordinal.matches() && !daemonSetLabels) {
      return Guess.of(WorkloadKind.StatefulSet, ordinal.group(1));
    }
    Matcher lone = LONE_SUFFIX_POD.matcher(podName);
    if (lone.matches()) {
      return daemonSetLabels
          ? Guess.of(WorkloadKind.DaemonSet, lone.group(1))
          : Guess.none(DropReason.AMBIGUOUS_WORKLOAD);
    }
    // No controller suffix: a pod created by hand.
    return Guess.none(DropReason.NOT_A_WORKLOAD);
  }

  private static Guess guessFromGenerateName(
      String generateName, Map<String, String> podLabels, boolean daemonSetLabels) {
    String prefix =
        generateName.endsWith("-")
            ? generateName.substring(0, generateName.length() - 1)
            : generateName;
    if (prefix.isEmpty()) {
      return Guess.none(DropReason.INCOMPLETE);
    }
    String hash = podLabels.get("pod-template-hash");
    if (hash != null && prefix.endsWith("-" + hash)) {
      return Guess.of(
          WorkloadKind.Deployment, prefix.substring(0, prefix.length() - hash.length() - 1));
    }
    Matcher rs = REPLICA_SET_PREFIX.matcher(prefix);
    if (!daemonSetLabels
        && rs.matches()
        && rs.group(2).chars().anyMatch(Character::isDigit)
        && !CRON_JOB_SUFFIX.matcher(rs.group(2)).matches()) {
      return Guess.of(WorkloadKind.Deployment, rs.group(1));
    }
    return daemonSetLabels
        ? Guess.of(WorkloadKind.DaemonSet, prefix)
        : Guess.none(DropReason.AMBIGUOUS_WORKLOAD);
  }

  private static boolean isJobPod(Map<String, String> podLabels) {
    return podLabels.containsKey("job-name")
        || podLabels.containsKey("batch.kubernetes.io/job-name")
        || podLabels.containsKey("batch.kubernetes.io/controller-uid")
        || podLabels.containsKey("controller-uid");
  }

  /**
   * Resolves a pod the cluster view does not know. When the view knows the guessed workload (the
   * pod was deleted, its Deployment lives on) and its selector matches the pod's labels, that is
   * the answer and nothing is inferred; otherwise the pod's selectable labels become the selector.
   */
  public Resolution infer(
      String namespace,
      String podName,
      Map<String, String> podLabels,
      String ip,
      String serviceAccount) {
    if (namespace == null || namespace.isBlank() || podName == null || podName.isBlank()) {
      return Resolution.dropped(DropReason.INCOMPLETE);
    }
    Guess guess = guess(podName, podLabels);
    if (!guess.found() && isJobPod(podLabels)) {
      // A Job's pod whose CronJob nobody names: a peer only if it opted in (StandaloneJobPeer).
      return StandaloneJobPeer.endpoint(namespace, podLabels, view.namespaceLabels(namespace))
          .map(
              b ->
                  Resolution.of(
                      b.podName(podName.endsWith("*") ? null : podName)
                          .ip(ip)
                          .serviceAccount(serviceAccount)
                          .build(),
                      null))
          .orElseGet(() -> Resolution.dropped(guess.dropReason()));
    }
    if (!guess.found()) {
      return ambiguousOr(guess.dropReason(), namespace, podName, podLabels, ip, serviceAccount);
    }
    String name = confirmedDeploymentName(namespace, podName, guess);
    Optional<LabelSelector> known = selectorInView(namespace, guess.kind(), name);
    Map<String, String> selectable = GeneratedPodLabels.selectable(podLabels);
    FlowEndpoint.Builder endpoint =
        FlowEndpoint.builder()
            .namespace(namespace)
            .workload(guess.kind(), name)
            .podLabels(podLabels)
            .namespaceLabels(view.namespaceLabels(namespace))
            .podName(podName.endsWith("*") ? null : podName)
            .ip(ip)
            .serviceAccount(serviceAccount);
    if (known.isPresent()) {
      if (!selects(known.get(), podLabels)) {
        // The name points at a workload whose selector does not match the pod: a guess is all it
        // would be. Its labels are still what they are.
        return ambiguousOr(
            DropReason.AMBIGUOUS_WORKLOAD, namespace, podName, podLabels, ip, serviceAccount);
      }
      return Resolution.of(endpoint.workloadSelector(known.get()).build(), null);
    }
    if (selectable.isEmpty()) {
      // An empty selector would select every pod of the namespace.
      return Resolution.dropped(DropReason.AMBIGUOUS_WORKLOAD);
    }
    return Resolution.of(
        endpoint
            .workloadSelector(new LabelSelectorBuilder().withMatchLabels(selectable).build())
            .inferred(true)
            .build(),
        null);
  }

  /**
   * Dropped for {@code reason}; when no workload could be inferred ({@code ambiguous-workload}),
   * with the end as its labels know it, for the flows whose other end is a known workload.
   */
  private Resolution ambiguousOr(
      DropReason reason,
      String namespace,
      String podName,
      Map<String, String> podLabels,
      String ip,
      String serviceAccount) {
    if (reason != DropReason.AMBIGUOUS_WORKLOAD) {
      return Resolution.dropped(reason);
    }
    return LabelOnlyPeer.endpoint(
            namespace,
            podLabels,
            view.namespaceLabels(namespace),
            podName.endsWith("*") ? null : podName,
            ip,
            serviceAccount)
        .map(peer -> Resolution.droppedWithLabels(reason, peer))
        .orElseGet(() -> Resolution.dropped(reason));
  }

  /** A Deployment pod's ReplicaSet, when the view still has it, names the Deployment for sure. */
  private String confirmedDeploymentName(String namespace, String podName, Guess guess) {
    if (guess.kind() != WorkloadKind.Deployment || podName.endsWith("*")) {
      return guess.name();
    }
    int lastDash = podName.lastIndexOf('-');
    return view.replicaSet(namespace, podName.substring(0, lastDash))
        .flatMap(
            rs ->
                rs.getMetadata().getOwnerReferences() == null
                    ? Optional.<OwnerReference>empty()
                    : rs.getMetadata().getOwnerReferences().stream()
                        .filter(
                            r ->
                                Boolean.TRUE.equals(r.getController())
                                    && "Deployment".equals(r.getKind()))
                        .findFirst())
        .map(OwnerReference::getName)
        .orElse(guess.name());
  }

  private Optional<LabelSelector> selectorInView(String namespace, WorkloadKind kind, String name) {
    return switch (kind) {
      case Deployment -> view.deployment(namespace, name).map(d -> d.getSpec().getSelector());
      case StatefulSet -> view.statefulSet(namespace, name).map(s -> s.getSpec().getSelector());
      case DaemonSet -> view.daemonSet(namespace, name).map(d -> d.getSpec().getSelector());
      case CronJob -> view.cronJob(namespace, name).flatMap(CronJobResolution::selector);
    };
  }

  /** Only matchLabels are checked: that is all a pod's label list can confirm. */
  private static boolean selects(LabelSelector selector, Map<String, String> podLabels) {
    if (selector == null || selector.getMatchLabels() == null) {
      return true;
    }
    return selector.getMatchLabels().entrySet().stream()
        .allMatch(e -> e.getValue().equals(podLabels.get(e.getKey())));
  }
}
