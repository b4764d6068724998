package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpecBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobSpecBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The informers' cache, keeping only what workload resolution reads. On a large cluster most of a
 * Pod's bytes are managed fields, annotations, env, volumes and container statuses; resolution
 * needs labels, owners, generateName, IPs, phase, hostNetwork, the service account and container
 * ports, and of a workload its labels, owners and selector (never its pod template, replicas or
 * strategy, nor its status: its spec keeps the selector alone).
 */
final class TrimmingItemStore<T extends HasMetadata> extends BasicItemStore<T> {

  TrimmingItemStore() {
    super(Cache::metaNamespaceKeyFunc);
  }

  @Override
  public T put(String key, T obj) {
    return super.put(key, trim(obj));
  }

  /** Trims in place and returns the same object. */
  static <T extends HasMetadata> T trim(T obj) {
    if (obj == null || obj.getMetadata() == null) {
      return obj;
    }
    obj.getMetadata().setManagedFields(null);
    obj.getMetadata().setAnnotations(inferredMark(obj.getMetadata().getAnnotations()));
    if (obj instanceof Pod pod) {
      trimPod(pod);
    } else if (obj instanceof ReplicaSet rs) {
      rs.setStatus(null);
      if (rs.getSpec() != null) {
        rs.setSpec(new ReplicaSetSpecBuilder().withSelector(rs.getSpec().getSelector()).build());
      }
    } else if (obj instanceof Deployment d) {
      d.setStatus(null);
      if (d.getSpec() != null) {
        d.setSpec(new DeploymentSpecBuilder().withSelector(d.getSpec().getSelector()).build());
      }
    } else if (obj instanceof StatefulSet s) {
      s.setStatus(null);
      if (s.getSpec() != null) {
        s.setSpec(new StatefulSetSpecBuilder().withSelector(s.getSpec().getSelector()).build());
      }
    } else if (obj instanceof DaemonSet ds) {
      ds.setStatus(null);
      if (ds.getSpec() != null) {
        ds.setSpec(new DaemonSetSpecBuilder().withSelector(ds.getSpec().getSelector()).build());
      }
    } else if (obj instanceof Job job) {
      job.setStatus(null);
      if (job.getSpec() != null) {
        job.setSpec(new JobSpec()); // only its owner (the CronJob) is read
      }
    } else if (obj instanceof CronJob cronJob) {
      cronJob.setStatus(null);
      trimCronJob(cronJob);
    }
    return obj;
  }

  /** Of the annotations, only the mark of a workload a capture-derived view made up is read. */
  private static Map<String, String> inferredMark(Map<String, String> annotations) {
    String mark =
        annotations == null ? null : annotations.get(WorkloadInference.INFERRED_OBJECT_ANNOTATION);
    return mark == null ? null : Map.of(WorkloadInference.INFERRED_OBJECT_ANNOTATION, mark);
  }

  /** Of a CronJob, only its job template's pod labels are read (they are its selector). */
  private static void trimCronJob(CronJob cronJob) {
    var spec = cronJob.getSpec();
    if (spec == null) {
      return;
    }
    var template =
        spec.getJobTemplate() == null
                || spec.getJobTemplate().getSpec() == null
                || spec.getJobTemplate().getSpec().getTemplate() == null
            ? null
            : spec.getJobTemplate().getSpec().getTemplate().getMetadata();
    var labels = template == null ? null : template.getLabels();
    cronJob.setSpec(
        new CronJobSpecBuilder()
            .withNewJobTemplate()
            .withNewSpec()
            .withNewTemplate()
            .withNewMetadata()
            .withLabels(labels)
            .endMetadata()
            .endTemplate()
            .endSpec()
            .endJobTemplate()
            .build());
  }

  private static void trimPod(Pod pod) {
    PodSpec spec = pod.getSpec();
    if (spec != null) {
      PodSpec kept = new PodSpec();
      kept.setHostNetwork(spec.getHostNetwork());
      kept.setServiceAccountName(spec.getServiceAccountName());
      List<Container> containers = new ArrayList<>();
      if (spec.getContainers() != null) {
        for (Container c : spec.getContainers()) {
          Container k = new Container();
          k.setName(c.getName());
          k.setPorts(c.getPorts());
          containers.add(k);
        }
      }
      kept.setContainers(containers);
      pod.setSpec(kept);
    }
    PodStatus status = pod.getStatus();
    if (status != null) {
      PodStatus kept = new PodStatus();
      kept.setPhase(status.getPhase());
      kept.setPodIP(status.getPodIP());
      kept.setPodIPs(status.getPodIPs());
      pod.setStatus(kept);
    }
  }
}
