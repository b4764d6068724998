package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster objects that flows are resolved against: pods, their owners and namespaces. Filled
 * from read-only informers ({@link InformerClusterView}) or from a cluster-state file ({@link
 * ClusterStateFile}).
 */
public interface ClusterView {

  Optional<Pod> podByName(String namespace, String name);

  /** The running pod that currently holds this IP. */
  Optional<Pod> podByIp(String ip);

  /**
   * Pods whose {@code metadata.generateName} is exactly this prefix (for example {@code
   * web-5d8f-}).
   */
  List<Pod> podsByGenerateName(String namespace, String generateName);

  Optional<ReplicaSet> replicaSet(String namespace, String name);

  Optional<Deployment> deployment(String namespace, String name);

  Optional<StatefulSet> statefulSet(String namespace, String name);

  Optional<DaemonSet> daemonSet(String namespace, String name);

  /** A Job, for finding its CronJob; views that do not track Jobs know none. */
  default Optional<Job> job(String namespace, String name) {
    return Optional.empty();
  }

  default Optional<CronJob> cronJob(String namespace, String name) {
    return Optional.empty();
  }

  /** The namespace's labels; empty when the namespace is unknown. */
  Map<String, String> namespaceLabels(String namespace);

  /**
   * A number that grows whenever any object of the view changes, so what was derived from the view
   * can be reused until it does; negative when the view does not tell (nothing is reused then).
   */
  default long version() {
    return -1;
  }
}
