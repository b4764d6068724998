package io.kubewarden.networkenforcer.cli.learn;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureInput;
import io.kubewarden.networkenforcer.ingest.file.UnreadableCaptureException;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneJson;
import io.kubewarden.networkenforcer.ingest.hubble.CiliumEndpointLabels;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleJson;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.EndpointType;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowKey;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Endpoint;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Flow;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.GeneratedPodLabels;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadInference;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The cluster state a capture implies when no {@code --cluster-state} file is given: pods, their
 * owners and namespaces rebuilt from what the flow records say about their endpoints. A workload's
 * selector is the set of labels every one of its pods in the capture carries, minus the labels
 * controllers generate ({@link GeneratedPodLabels}).
 *
 * <p>Hubble names the pod, its labels and (for endpoints local to the reporting node, Cilium 1.15+)
 * its workload. Where no record of the capture names a pod's workload (older Cilium, field-masked
 * exports, pods seen only from other nodes) and for Goldmane's aggregated names, the owner is
 * inferred from the name's controller suffixes and the labels ({@link WorkloadInference}); such
 * workloads are annotated so that endpoints resolved to them, and the proposals learned from them,
 * carry the inferred mark. A pod whose owner cannot be told is left out and its flows are dropped
 * with the inference's reason. ztunnel logs carry no labels: those captures need a cluster-state
 * file.
 */
public final class CaptureClusterState {
  private static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

  private final Map<String, Map<String, String>> namespaceLabels = new TreeMap<>();

  /** ns/Kind/name -> labels all its pods share (selectable ones only). */
  private final Map<String, Map<String, String>> workloadSelectors = new LinkedHashMap<>();

  private final Map<String, HasMetadata> pods = new LinkedHashMap<>();
  private final Map<String, HasMetadata> replicaSets = new HashMap<>();

  /** Workloads some record named (Hubble's {@code workloads}); all others were inferred. */
  private final Set<String> namedWorkloads = new HashSet<>();

  /** Hubble pods that no record names a workload for, resolved after the whole capture is read. */
  private final Map<String, PodSeen> unnamedPods = new LinkedHashMap<>();

  private record PodSeen(
      String namespace,
      String name,
      String ip,
      String serviceAccount,
      Map<String, String> labels) {}

  private CaptureClusterState() {}

  /** Reads the capture once and returns the cluster it describes. */
  public static ClusterIndex derive(Path capture, CaptureFormat format) {
    if (format == CaptureFormat.ZTUNNEL) {
      throw new LearnInputException(
          "ztunnel access logs carry no pod labels, so workload selectors cannot be "
              + "learned from the capture alone; pass --cluster-state FILE (write it with: "
              + "kubectl get ns,deploy,sts,ds,rs,pods -A -o json > cluster-state.json)");
    }
    CaptureClusterState state = new CaptureClusterState();
    // A capture cut short is learned up to the break; the pipeline's read says where it is.
    try (BufferedReader reader =
        new TruncatedCapture(CaptureInput.open(capture), capture.toString())) {
      String line;
      while ((line = reader.readLine()) != null) {
        if (!line.isBlank()) {
          state.line(line, format);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read capture file " + capture + ": " + e.getMessage(), e);
    } catch (UnreadableCaptureException e) {
      throw new LearnInputException(e.getMessage());
    }
    state.inferUnnamedPods();
    return state.toIndex();
  }

  private void line(String line, CaptureFormat format) {
    // Lines that do not decode are skipped here; the real read counts and dead-letters them.
    try {
      JsonNode node = Json.mapper().readTree(line);
      if (format == CaptureFormat.HUBBLE && HubbleJson.looksLikeHubble(node)) {
        GetFlowsResponse response = HubbleJson.decode(line, node);
        if (response.hasFlow()) {
          Flow flow = response.getFlow();
          hubbleEndpoint(flow.getSource(), flow.hasIP() ? flow.getIP().getSource() : "");
          hubbleEndpoint(flow.getDestination(), flow.hasIP() ? flow.getIP().getDestination() : "");
        }
      } else if (format == CaptureFormat.GOLDMANE && GoldmaneJson.looksLikeGoldmane(node)) {
        FlowResult result = GoldmaneJson.decode(line, node);
        FlowKey key = result.getFlow().getKey();
        if (key.getSourceTypeValue() == EndpointType.WorkloadEndpoint_VALUE) {
          goldmaneEndpoint(
              key.getSourceNamespace(),
              key.getSourceName(),
              result.getFlow().getSourceLabelsList());
        }
        if (key.getDestTypeValue() == EndpointType.WorkloadEndpoint_VALUE) {
          goldmaneEndpoint(
              key.getDestNamespace(), key.getDestName(), result.getFlow().getDestLabelsList());
        }
      }
    } catch (IOException | RuntimeException e) {
      // skipped, see above
    }
  }

  private void hubbleEndpoint(Endpoint ep, String ip) {
    if (ep.getPodName().isEmpty() || ep.getNamespace().isEmpty()) {
      return;
    }
    String ns = ep.getNamespace();
    CiliumEndpointLabels labels = CiliumEndpointLabels.of(ep.getLabelsList());
    namespace(ns).putAll(labels.namespaceLabels());
    if (ep.getWorkloadsCount() == 0) {
      unnamedPods.putIfAbsent(
          ns + "/" + ep.getPodName(),
          new PodSeen(ns, ep.getPodName(), ip, labels.serviceAccount(), labels.podLabels()));
      return;
    }
    Optional<WorkloadKind> kind = WorkloadKind.fromKind(ep.getWorkloads(0).getKind());
    if (kind.isEmpty()) {
      return;
    }
    String workload = ep.getWorkloads(0).getName();
    namedWorkloads.add(ns + "/" + kind.get().name() + "/" + workload);
    Map<String, String> podLabels = new TreeMap<>(labels.podLabels());
    String ownerRs =
        kind.get() == WorkloadKind.Deployment
            ? workload + "-" + podLabels.getOrDefault("pod-template-hash", "capture")
            // A CronJob's pod is owned by the run's Job; the Job's name is in its per-run label.
            : kind.get() == WorkloadKind.CronJob
                ? podLabels.getOrDefault("job-name", workload + "-capture")
                : null;
    pod(
        ns,
        ep.getPodName(),
        null,
        ip,
        labels.serviceAccount(),
        podLabels,
        kind.get(),
        workload,
        ownerRs);
  }

  /**
   * Pods that only appear without {@code workloads} (seen from another node, older Cilium, masked
   * exports): a pod some other record named keeps that workload; the rest are inferred from name
   * and labels, or left out when that is a guess.
   */
  private void inferUnnamedPods() {
    unnamedPods.forEach(
        (key, seen) -> {
          if (pods.containsKey(key)) {
            return;
          }
          WorkloadInference.Guess guess = WorkloadInference.guess(seen.name(), seen.labels());
          if (!guess.found() || GeneratedPodLabels.selectable(seen.labels()).isEmpty()) {
            return;
          }
          String ownerRs = null;
          if (guess.kind() == WorkloadKind.Deployment) {
            ownerRs = seen.name().substring(0, seen.name().lastIndexOf('-'));
          }
          pod(
              seen.namespace(),
              seen.name(),
              null,
              seen.ip(),
              seen.serviceAccount(),
              new TreeMap<>(seen.labels()),
              guess.kind(),
              guess.name(),
              ownerRs);
        });
  }

  private void goldmaneEndpoint(String ns, String aggregatedName, List<String> labelList) {
    if (ns.isEmpty() || aggregatedName.isEmpty()) {
      return;
    }
    Map<String, String> labels = new TreeMap<>();
    labelList.forEach(l -> put(labels, l));
    namespace(ns);
    WorkloadInference.Guess guess = WorkloadInference.guess(aggregatedName, labels);
    if (!guess.found()) {
      return;
    }
    if (!aggregatedName.endsWith("*")) {
      pod(ns, aggregatedName, null, null, null, labels, guess.kind(), guess.name(), null);
      return;
    }
    String generateName = aggregatedName.substring(0, aggregatedName.length() - 1);
    String prefix =
        generateName.endsWith("-")
            ? generateName.substring(0, generateName.length() - 1)
            : generateName;
    pod(
        ns,
        generateName + "capture",
        generateName,
        null,
        null,
        labels,
        guess.kind(),
        guess.name(),
        guess.kind() == WorkloadKind.Deployment ? prefix : null);
  }

  private void pod(
      String ns,
      String name,
      String generateName,
      String ip,
      String serviceAccount,
      Map<String, String> labels,
      WorkloadKind kind,
      String workload,
      String replicaSet) {
    if (ns.contains("/") || workload.contains("/") || name.contains("/")) {
      // Not a Kubernetes name (a mangled record): nothing to derive, and it would break the "/"
      // keys.
      return;
    }
    String workloadKey = ns + "/" + kind.name() + "/" + workload;
    Map<String, String> selectable = GeneratedPodLabels.selectable(labels);
    if (labels.isEmpty()) {
      // A record that names no labels (Goldmane's other reporter) says nothing about the selector.
      workloadSelectors.putIfAbsent(workloadKey, null);
    } else {
      // The selector must match every pod of the workload seen: keep the labels they all share.
      workloadSelectors.merge(
          workloadKey, selectable, (old, now) -> old == null ? now : common(old, now));
    }
    OwnerReference owner;
    if (replicaSet != null && kind == WorkloadKind.CronJob) {
      owner = controller("Job", replicaSet, "batch/v1");
      replicaSets.computeIfAbsent(
          ns + "/" + replicaSet,
          k ->
              new JobBuilder()
                  .withMetadata(
                      meta(ns, replicaSet, Map.of(), controller(kind.name(), workload, "batch/v1")))
                  .build());
    } else if (replicaSet != null) {
      owner = controller("ReplicaSet", replicaSet, "apps/v1");
      replicaSets.computeIfAbsent(
          ns + "/" + replicaSet,
          k ->
              new ReplicaSetBuilder()
                  .withMetadata(
                      meta(ns, replicaSet, Map.of(), controller(kind.name(), workload, "apps/v1")))
                  .build());
    } else {
      owner = controller(kind.name(), workload, "apps/v1");
    }
    ObjectMeta meta = meta(ns, name, labels, owner);
    meta.setGenerateName(generateName);
    PodBuilder pod =
        new PodBuilder()
            .withMetadata(meta)
            .withNewSpec()
            .withServiceAccountName(serviceAccount)
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .withPodIP(ip == null || ip.isEmpty() ? null : ip)
            .endStatus();
    pods.putIfAbsent(ns + "/" + name, pod.build());
  }

  private static Map<String, String> common(Map<String, String> a, Map<String, String> b) {
    Map<String, String> common = new TreeMap<>(a);
    common.entrySet().removeIf(e -> !e.getValue().equals(b.get(e.getKey())));
    return common;
  }

  private Map<String, String> namespace(String ns) {
    return namespaceLabels.computeIfAbsent(ns, k -> new TreeMap<>(Map.of(NAMESPACE_NAME_LABEL, k)));
  }

  private ClusterIndex toIndex() {
    ClusterIndex index = new ClusterIndex();
    namespaceLabels.forEach(
        (ns, labels) ->
            index.upsert(
                new NamespaceBuilder()
                    .withMetadata(new ObjectMetaBuilder().withName(ns).withLabels(labels).build())
                    .build()));
    workloadSelectors.forEach(
        (key, selector) -> {
          if (selector == null || selector.isEmpty()) {
            // No labels seen: an empty selector would select every pod; its flows are dropped as
            // unknown.
            return;
          }
          String[] parts = key.split("/", 3);
          ObjectMeta meta = meta(parts[0], parts[2], Map.of(), null);
          if (!namedWorkloads.contains(key)) {
            meta.setAnnotations(Map.of(WorkloadInference.INFERRED_OBJECT_ANNOTATION, "true"));
          }
          var labelSelector = new LabelSelectorBuilder().withMatchLabels(selector).build();
          switch (WorkloadKind.valueOf(parts[1])) {
            case Deployment ->
                index.upsert(
                    new DeploymentBuilder()
                        .withMetadata(meta)
                        .withNewSpec()
                        .withSelector(labelSelector)
                        .endSpec()
                        .build());
            case StatefulSet ->
                index.upsert(
                    new StatefulSetBuilder()
                        .withMetadata(meta)
                        .withNewSpec()
                        .withSelector(labelSelector)
                        .endSpec()
                        .build());
            case DaemonSet ->
                index.upsert(
                    new DaemonSetBuilder()
                        .withMetadata(meta)
                        .withNewSpec()
                        .withSelector(labelSelector)
                        .endSpec()
                        .build());
            case CronJob ->
                index.upsert(
                    new CronJobBuilder()
                        .withMetadata(meta)
                        .withNewSpec()
                        .withNewJobTemplate()
                        .withNewSpec()
                        .withNewTemplate()
                        .withNewMetadata()
                        .withLabels(selector)
                        .endMetadata()
                        .endTemplate()
                        .endSpec()
                        .endJobTemplate()
                        .endSpec()
                        .build());
          }
        });
    replicaSets.values().forEach(index::upsert);
    pods.values().forEach(index::upsert);
    return index;
  }

  private static ObjectMeta meta(
      String ns, String name, Map<String, String> labels, OwnerReference owner) {
    ObjectMetaBuilder b =
        new ObjectMetaBuilder().withNamespace(ns).withName(name).withLabels(new TreeMap<>(labels));
    if (owner != null) {
      b.withOwnerReferences(owner);
    }
    return b.build();
  }

  private static OwnerReference controller(String kind, String name, String apiVersion) {
    return new OwnerReferenceBuilder()
        .withApiVersion(apiVersion)
        .withKind(kind)
        .withName(name)
        .withController(true)
        .build();
  }

  private static void put(Map<String, String> labels, String keyValue) {
    int eq = keyValue.indexOf('=');
    if (eq > 0) {
      labels.put(keyValue.substring(0, eq), keyValue.substring(eq + 1));
    }
  }
}
