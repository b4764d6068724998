package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a pod (found by name, IP or generateName) into a {@link FlowEndpoint} of its Deployment,
 * StatefulSet, DaemonSet or CronJob, following controller owner references (pod -> ReplicaSet ->
 * Deployment, pod -> Job -> CronJob, see {@link CronJobResolution}). Pods on the host network and
 * pods of anything else (a Job without a CronJob, a bare pod) are dropped with a reason.
 */
public final class WorkloadResolver {
  private static final String POD_TEMPLATE_HASH = "pod-template-hash";

  private final ClusterView view;
  private final PodResolutions resolutions = new PodResolutions();

  public WorkloadResolver(ClusterView view) {
    this.view = view;
  }

  public ClusterView view() {
    return view;
  }

  public Resolution byName(String namespace, String podName) {
    if (isBlank(namespace) || isBlank(podName)) {
      return Resolution.dropped(DropReason.INCOMPLETE);
    }
    return view.podByName(namespace, podName)
        .map(this::resolve)
        .orElseGet(() -> Resolution.dropped(DropReason.UNKNOWN_POD));
  }

  public Resolution byIp(String ip) {
    if (isBlank(ip)) {
      return Resolution.dropped(DropReason.INCOMPLETE);
    }
    return view.podByIp(ip)
        .map(this::resolve)
        .orElseGet(() -> Resolution.dropped(DropReason.UNKNOWN_POD));
  }

  /**
   * Resolves a Calico aggregated name: {@code <generateName>*} stands for every pod created with
   * that generateName; any of them leads to the same workload. A name without {@code *} is a pod
   * name (StatefulSet pods and bare pods have no generateName).
   */
  public Resolution byAggregatedName(String namespace, String aggregatedName) {
    if (isBlank(namespace) || isBlank(aggregatedName)) {
      return Resolution.dropped(DropReason.INCOMPLETE);
    }
    if (!aggregatedName.endsWith("*")) {
      return byName(namespace, aggregatedName);
    }
    String generateName = aggregatedName.substring(0, aggregatedName.length() - 1);
    List<Pod> pods = view.podsByGenerateName(namespace, generateName);
    if (!pods.isEmpty()) {
      Resolution r = resolve(pods.get(0));
      return r.resolved() ? r.withoutPodIdentity() : r;
    }
    return byGenerateNameOwner(namespace, generateName);
  }

  /** When every pod of the prefix is gone, the prefix itself still names its owner. */
  private Resolution byGenerateNameOwner(String namespace, String generateName) {
    String owner =
        generateName.endsWith("-")
            ? generateName.substring(0, generateName.length() - 1)
            : generateName;
    Optional<ReplicaSet> rs = view.replicaSet(namespace, owner);
    if (rs.isPresent()) {
      Optional<OwnerReference> controller = controllerOf(rs.get());
      if (controller.isEmpty() || !"Deployment".equals(controller.get().getKind())) {
        return Resolution.dropped(DropReason.NOT_A_WORKLOAD);
      }
      return workloadEndpoint(
          namespace, WorkloadKind.Deployment, controller.get().getName(), Map.of(), null);
    }
    if (view.daemonSet(namespace, owner).isPresent()) {
      return workloadEndpoint(namespace, WorkloadKind.DaemonSet, owner, Map.of(), null);
    }
    return Resolution.dropped(DropReason.UNKNOWN_POD);
  }

  /** Resolves a known pod to its workload (reusing the last result while the view is unchanged). */
  public Resolution resolve(Pod pod) {
    return resolutions.resolve(pod, view.version(), this::resolveNow);
  }

  private Resolution resolveNow(Pod pod) {
    if (pod.getSpec() != null && Boolean.TRUE.equals(pod.getSpec().getHostNetwork())) {
      return Resolution.dropped(DropReason.HOST_NETWORK, pod);
    }
    String namespace = pod.getMetadata().getNamespace();
    Optional<OwnerReference> owner = controllerOf(pod);
    if (owner.isEmpty()) {
      return Resolution.dropped(DropReason.NOT_A_WORKLOAD, pod);
    }
    String ownerName = owner.get().getName();
    return switch (owner.get().getKind()) {
      case "ReplicaSet" -> deploymentOf(pod, namespace, ownerName);
      case "StatefulSet" -> workloadEndpoint(namespace, WorkloadKind.StatefulSet, ownerName, pod);
      case "DaemonSet" -> workloadEndpoint(namespace, WorkloadKind.DaemonSet, ownerName, pod);
      case "Job" ->
          CronJobResolution.cronJobOf(view, namespace, ownerName)
              .map(cronJob -> workloadEndpoint(namespace, WorkloadKind.CronJob, cronJob, pod))
              .orElseGet(() -> jobPeer(namespace, pod));
      default -> Resolution.dropped(DropReason.NOT_A_WORKLOAD, pod);
    };
  }

  /**
   * A Job without a CronJob: a peer if it opted in with stable labels of its own, else no workload.
   */
  private Resolution jobPeer(String namespace, Pod pod) {
    return StandaloneJobPeer.endpoint(namespace, labels(pod), view.namespaceLabels(namespace))
        .map(
            b ->
                Resolution.of(
                    b.podName(pod.getMetadata().getName())
                        .ip(pod.getStatus() == null ? null : pod.getStatus().getPodIP())
                        .serviceAccount(serviceAccount(pod))
                        .namedPorts(namedPorts(pod))
                        .namedPortsKnown(containersKnown(pod))
                        .build(),
                    pod))
        .orElseGet(() -> Resolution.dropped(DropReason.NOT_A_WORKLOAD, pod));
  }

  private Resolution deploymentOf(Pod pod, String namespace, String replicaSetName) {
    Optional<ReplicaSet> rs = view.replicaSet(namespace, replicaSetName);
    if (rs.isPresent()) {
      Optional<OwnerReference> controller = controllerOf(rs.get());
      if (controller.isPresent() && "Deployment".equals(controller.get().getKind())) {
        return workloadEndpoint(
            namespace, WorkloadKind.Deployment, controller.get().getName(), pod);
      }
      return Resolution.dropped(DropReason.NOT_A_WORKLOAD, pod);
    }
    // ReplicaSet not seen (yet): a Deployment names its ReplicaSets
    // <deployment>-<pod-template-hash>.
    String hash = labels(pod).get(POD_TEMPLATE_HASH);
    if (hash != null && replicaSetName.endsWith("-" + hash)) {
      String deployment = replicaSetName.substring(0, replicaSetName.length() - hash.length() - 1);
      return workloadEndpoint(namespace, WorkloadKind.Deployment, deployment, pod);
    }
    return Resolution.dropped(DropReason.UNKNOWN_WORKLOAD, pod);
  }

  private Resolution workloadEndpoint(String namespace, WorkloadKind kind, String name, Pod pod) {
    return workloadEndpoint(namespace, kind, name, labels(pod), pod);
  }

  private Resolution workloadEndpoint(
      String namespace, WorkloadKind kind, String name, Map<String, String> podLabels, Pod pod) {
    Optional<? extends HasMetadata> workload =
        switch (kind) {
          case Deployment -> view.deployment(namespace, name);
          case StatefulSet -> view.statefulSet(namespace, name);
          case DaemonSet -> view.daemonSet(namespace, name);
          case CronJob -> view.cronJob(namespace, name);
        };
    Optional<LabelSelector> selector =
        kind == WorkloadKind.CronJob
            // Not in the view (yet, or gone): the run's pod carries the template labels plus
            // per-run ones.
            ? view.cronJob(namespace, name)
                .flatMap(CronJobResolution::selector)
                .or(() -> CronJobResolution.selector(podLabels))
            : workload.map(WorkloadResolver::selectorOf);
    if (selector.isEmpty()) {
      return Resolution.dropped(DropReason.UNKNOWN_WORKLOAD, pod);
    }
    FlowEndpoint.Builder b =
        FlowEndpoint.builder()
            .namespace(namespace)
            .workload(kind, name)
            .workloadSelector(selector.get())
            .inferred(workload.isPresent() && isInferred(workload.get()))
            .podLabels(podLabels)
            .namespaceLabels(view.namespaceLabels(namespace));
    if (pod != null) {
      b.podName(pod.getMetadata().getName())
          .ip(pod.getStatus() == null ? null : pod.getStatus().getPodIP())
          .serviceAccount(serviceAccount(pod))
          .namedPorts(namedPorts(pod))
          .namedPortsKnown(containersKnown(pod));
    }
    return Resolution.of(b.build(), pod);
  }

  private static LabelSelector selectorOf(HasMetadata workload) {
    if (workload instanceof Deployment d) {
      return d.getSpec().getSelector();
    }
    if (workload instanceof StatefulSet s) {
      return s.getSpec().getSelector();
    }
    return ((DaemonSet) workload).getSpec().getSelector();
  }

  /** A workload a capture-derived view made up from pod names (see {@link WorkloadInference}). */
  private static boolean isInferred(HasMetadata workload) {
    Map<String, String> annotations = workload.getMetadata().getAnnotations();
    return annotations != null
        && "true".equals(annotations.get(WorkloadInference.INFERRED_OBJECT_ANNOTATION));
  }

  /** The pod's service account; Kubernetes uses {@code default} when none is set. */
  public static String serviceAccount(Pod pod) {
    String sa = pod.getSpec() == null ? null : pod.getSpec().getServiceAccountName();
    return isBlank(sa) ? "default" : sa;
  }

  /**
   * Whether the pod's containers were read (informers, a cluster-state file): only then is an empty
   * named-port list "none" rather than "unknown" (a pod made up from capture labels has none).
   */
  static boolean containersKnown(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getContainers() != null
        && !pod.getSpec().getContainers().isEmpty();
  }

  static List<NamedPort> namedPorts(Pod pod) {
    List<NamedPort> ports = new ArrayList<>();
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return ports;
    }
    for (Container c : pod.getSpec().getContainers()) {
      if (c.getPorts() == null) {
        continue;
      }
      for (ContainerPort p : c.getPorts()) {
        if (!isBlank(p.getName()) && p.getContainerPort() != null) {
          ports.add(
              new NamedPort(
                  p.getName(),
                  p.getContainerPort(),
                  Protocol.parse(p.getProtocol()).orElse(Protocol.TCP)));
        }
      }
    }
    return ports;
  }

  private static Optional<OwnerReference> controllerOf(HasMetadata object) {
    List<OwnerReference> refs = object.getMetadata().getOwnerReferences();
    if (refs == null) {
      return Optional.empty();
    }
    return refs.stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst();
  }

  private static Map<String, String> labels(Pod pod) {
    Map<String, String> l = pod == null ? null : pod.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
