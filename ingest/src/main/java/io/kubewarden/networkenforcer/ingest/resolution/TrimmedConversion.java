package io.kubewarden.networkenforcer.ingest.resolution;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpec;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobSpecBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * An object of a cluster-state file made into what {@link TrimmingItemStore#trim} keeps of it, by
 * converting only the parts kept. Converting a whole Pod or Deployment made Jackson build
 * deserializers for the full Kubernetes type graph (containers, probes, volumes, pod templates) and
 * convert every field only to drop it: about half of loading the state of a cluster of 1,000
 * workloads. A part in a shape other than the plain one (not an object where one belongs) makes the
 * object converted whole as before, so it is read, or refused with the message, as it was.
 */
final class TrimmedConversion {
  /** A part not in the plain shape: the object is converted whole. */
  private static final class NotPlain extends RuntimeException {
    NotPlain() {
      super(null, null, false, false);
    }
  }

  private final KubernetesSerialization serialization;

  /** One reader per part type: a conversion by class resolves the type again on every call. */
  private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();

  private final ObjectMapper mapper;

  /**
   * With fabric8's mapping of Kubernetes objects, as {@code new KubernetesSerialization()} has it.
   */
  TrimmedConversion() {
    this.mapper = new ObjectMapper();
    this.serialization = new KubernetesSerialization(mapper, true);
  }

  /** The trimmed object, equal to {@code TrimmingItemStore.trim(convertValue(node, type))}. */
  HasMetadata convert(JsonNode node, Class<? extends HasMetadata> type) {
    HasMetadata kept;
    try {
      kept = keptParts(node, type);
    } catch (NotPlain e) {
      kept = null;
    }
    return TrimmingItemStore.trim(kept != null ? kept : serialization.convertValue(node, type));
  }

  /** The parts trim keeps, converted; null for a Namespace (converted whole). */
  private HasMetadata keptParts(JsonNode node, Class<? extends HasMetadata> type) {
    if (type == Pod.class) {
      return pod(node);
    }
    if (type == Deployment.class) {
      return selectorOnly(
          node,
          new Deployment(),
          DeploymentSpec::new,
          DeploymentSpec::setSelector,
          Deployment::setSpec);
    }
    if (type == StatefulSet.class) {
      return selectorOnly(
          node,
          new StatefulSet(),
          StatefulSetSpec::new,
          StatefulSetSpec::setSelector,
          StatefulSet::setSpec);
    }
    if (type == DaemonSet.class) {
      return selectorOnly(
          node,
          new DaemonSet(),
          DaemonSetSpec::new,
          DaemonSetSpec::setSelector,
          DaemonSet::setSpec);
    }
    if (type == ReplicaSet.class) {
      return selectorOnly(
          node,
          new ReplicaSet(),
          ReplicaSetSpec::new,
          ReplicaSetSpec::setSelector,
          ReplicaSet::setSpec);
    }
    if (type == Job.class) {
      return job(node);
    }
    if (type == CronJob.class) {
      return cronJob(node);
    }
    return null; // a Namespace: small, converted whole
  }

  /** A workload with a spec of its selector alone; an absent or null spec stays null. */
  private <T extends HasMetadata, S> T selectorOnly(
      JsonNode node,
      T workload,
      Supplier<S> newSpec,
      BiConsumer<S, LabelSelector> setSelector,
      BiConsumer<T, S> setSpec) {
    header(node, workload);
    JsonNode spec = object(node.get("spec"));
    if (spec != null) {
      S kept = newSpec.get();
      setSelector.accept(
          kept, spec.has("selector") ? part(spec.get("selector"), LabelSelector.class) : null);
      setSpec.accept(workload, kept);
    }
    return workload;
  }

  /** The part when it is an object; null when absent or null; otherwise not plain. */
  private static JsonNode object(JsonNode part) {
    if (part == null || part.isNull()) {
      return null;
    }
    if (!part.isObject()) {
      throw new NotPlain();
    }
    return part;
  }

  /** Each element converted, as Jackson converts a list (a null list stays null). */
  private <E> List<E> list(JsonNode part, Class<E> type) {
    if (part.isNull()) {
      return null;
    }
    if (!part.isArray()) {
      throw new NotPlain();
    }
    List<E> list = new ArrayList<>(part.size());
    for (JsonNode element : part) {
      list.add(part(element, type));
    }
    return list;
  }

  private Pod pod(JsonNode node) {
    Pod pod = header(node, new Pod());
    JsonNode spec = object(node.get("spec"));
    if (spec != null) {
      PodSpec kept = new PodSpec();
      if (spec.has("hostNetwork")) {
        kept.setHostNetwork(part(spec.get("hostNetwork"), Boolean.class));
      }
      if (spec.has("serviceAccountName")) {
        kept.setServiceAccountName(part(spec.get("serviceAccountName"), String.class));
      }
      if (spec.has("containers")) {
        kept.setContainers(containers(spec.get("containers")));
      }
      pod.setSpec(kept);
    }
    JsonNode status = object(node.get("status"));
    if (status != null) {
      PodStatus kept = new PodStatus();
      if (status.has("phase")) {
        kept.setPhase(part(status.get("phase"), String.class));
      }
      if (status.has("podIP")) {
        kept.setPodIP(part(status.get("podIP"), String.class));
      }
      if (status.has("podIPs")) {
        kept.setPodIPs(list(status.get("podIPs"), PodIP.class));
      }
      pod.setStatus(kept);
    }
    return pod;
  }

  /** Name and ports of each container. */
  private List<Container> containers(JsonNode containers) {
    if (containers.isNull()) {
      return null;
    }
    if (!containers.isArray()) {
      throw new NotPlain();
    }
    List<Container> list = new ArrayList<>(containers.size());
    for (JsonNode c : containers) {
      if (!c.isObject()) {
        throw new NotPlain(); // a null container: converted whole, trim refuses it as it always did
      }
      Container kept = new Container();
      if (c.has("name")) {
        kept.setName(part(c.get("name"), String.class));
      }
      if (c.has("ports")) {
        kept.setPorts(list(c.get("ports"), ContainerPort.class));
      }
      list.add(kept);
    }
    return list;
  }

  private Job job(JsonNode node) {
    Job job = header(node, new Job());
    if (object(node.get("spec")) != null) {
      job.setSpec(new JobSpec());
    }
    return job;
  }

  /** Only the metadata of the job template's pod template is kept (its labels are read). */
  private CronJob cronJob(JsonNode node) {
    CronJob cronJob = header(node, new CronJob());
    JsonNode level = object(node.get("spec"));
    if (level == null) {
      return cronJob;
    }
    for (String field : new String[] {"jobTemplate", "spec", "template"}) {
      level = object(level.get(field));
      if (level == null) {
        cronJob.setSpec(new CronJobSpecBuilder().build()); // no pod template: trim keeps no labels
        return cronJob;
      }
    }
    JsonNode metadata = level.get("metadata");
    ObjectMeta templateMeta = metadata == null ? null : part(metadata, ObjectMeta.class);
    cronJob.setSpec(
        new CronJobSpecBuilder()
            .withNewJobTemplate()
            .withNewSpec()
            .withNewTemplate()
            .withMetadata(templateMeta)
            .endTemplate()
            .endSpec()
            .endJobTemplate()
            .build());
    return cronJob;
  }

  /**
   * A part read as fabric8 reads it; one it refuses makes the whole object converted (and refused)
   * as before.
   */
  private <T> T part(JsonNode part, Class<T> type) {
    try {
      return readers.computeIfAbsent(type, mapper::readerFor).readValue(part);
    } catch (IOException | RuntimeException e) {
      throw new NotPlain();
    }
  }

  private <T extends HasMetadata> T header(JsonNode node, T object) {
    // apiVersion and kind are the type's own: the file's were matched to choose it.
    if (node.has("metadata")) {
      object.setMetadata(part(node.get("metadata"), ObjectMeta.class));
    }
    return object;
  }
}
