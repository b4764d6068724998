package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory {@link ClusterView}: objects by namespace/name, pods also by IP and by
 * generateName. Safe for one writer (informer callbacks) and many readers.
 */
public final class ClusterIndex implements ClusterView {
  private final Map<String, Pod> pods = new ConcurrentHashMap<>();
  private final Map<String, String> podKeyByIp = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> podKeysByGenerateName = new ConcurrentHashMap<>();
  private final Map<String, ReplicaSet> replicaSets = new ConcurrentHashMap<>();
  private final Map<String, Deployment> deployments = new ConcurrentHashMap<>();
  private final Map<String, StatefulSet> statefulSets = new ConcurrentHashMap<>();
  private final Map<String, DaemonSet> daemonSets = new ConcurrentHashMap<>();
  private final Map<String, Job> jobs = new ConcurrentHashMap<>();
  private final Map<String, CronJob> cronJobs = new ConcurrentHashMap<>();
  private final Map<String, Map<String, String>> namespaceLabels = new ConcurrentHashMap<>();

  /** Moved on after every change is in place (see {@link ClusterView#version()}). */
  private final AtomicLong version = new AtomicLong();

  /** Adds or replaces an object of a kind we index; other kinds are ignored. */
  public synchronized void upsert(HasMetadata object) {
    if (object instanceof Pod pod) {
      removePodIndexes(key(pod));
      pods.put(key(pod), pod);
      indexPod(pod);
    } else if (object instanceof ReplicaSet rs) {
      replicaSets.put(key(rs), rs);
    } else if (object instanceof Deployment d) {
      deployments.put(key(d), d);
    } else if (object instanceof StatefulSet s) {
      statefulSets.put(key(s), s);
    } else if (object instanceof DaemonSet d) {
      daemonSets.put(key(d), d);
    } else if (object instanceof Job j) {
      jobs.put(key(j), j);
    } else if (object instanceof CronJob c) {
      cronJobs.put(key(c), c);
    } else if (object instanceof Namespace ns) {
      Map<String, String> labels = ns.getMetadata().getLabels();
      namespaceLabels.put(
          ns.getMetadata().getName(), labels == null ? Map.of() : Map.copyOf(labels));
    }
    version.incrementAndGet();
  }

  public synchronized void remove(HasMetadata object) {
    if (object instanceof Pod pod) {
      removePodIndexes(key(pod));
      pods.remove(key(pod));
    } else if (object instanceof ReplicaSet) {
      replicaSets.remove(key(object));
    } else if (object instanceof Deployment) {
      deployments.remove(key(object));
    } else if (object instanceof StatefulSet) {
      statefulSets.remove(key(object));
    } else if (object instanceof DaemonSet) {
      daemonSets.remove(key(object));
    } else if (object instanceof Job) {
      jobs.remove(key(object));
    } else if (object instanceof CronJob) {
      cronJobs.remove(key(object));
    } else if (object instanceof Namespace) {
      namespaceLabels.remove(object.getMetadata().getName());
    }
    version.incrementAndGet();
  }

  @Override
  public long version() {
    return version.get();
  }

  public int podCount() {
    return pods.size();
  }

  private void indexPod(Pod pod) {
    String key = key(pod);
    String generateName = pod.getMetadata().getGenerateName();
    if (generateName != null && !generateName.isEmpty()) {
      podKeysByGenerateName
          .computeIfAbsent(
              pod.getMetadata().getNamespace() + "/" + generateName,
              k -> ConcurrentHashMap.newKeySet())
          .add(key);
    }
    // A finished pod's IP may already belong to a new pod: only live pods own their IP.
    if (isLive(pod) && pod.getStatus() != null) {
      if (pod.getStatus().getPodIPs() != null && !pod.getStatus().getPodIPs().isEmpty()) {
        pod.getStatus()
            .getPodIPs()
            .forEach(
                ip -> {
                  if (ip.getIp() != null) {
                    podKeyByIp.put(ip.getIp(), key);
                  }
                });
      } else if (pod.getStatus().getPodIP() != null) {
        podKeyByIp.put(pod.getStatus().getPodIP(), key);
      }
    }
  }

  private void removePodIndexes(String key) {
    Pod old = pods.get(key);
    if (old == null) {
      return;
    }
    podKeyByIp.values().removeIf(key::equals);
    String generateName = old.getMetadata().getGenerateName();
    if (generateName != null) {
      Set<String> keys =
          podKeysByGenerateName.get(old.getMetadata().getNamespace() + "/" + generateName);
      if (keys != null) {
        keys.remove(key);
      }
    }
  }

  static boolean isLive(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return !"Succeeded".equals(phase)
        && !"Failed".equals(phase)
        && pod.getMetadata().getDeletionTimestamp() == null;
  }

  @Override
  public Optional<Pod> podByName(String namespace, String name) {
    return Optional.ofNullable(pods.get(namespace + "/" + name));
  }

  @Override
  public Optional<Pod> podByIp(String ip) {
    String key = podKeyByIp.get(ip);
    return key == null ? Optional.empty() : Optional.ofNullable(pods.get(key));
  }

  @Override
  public List<Pod> podsByGenerateName(String namespace, String generateName) {
    Set<String> keys = podKeysByGenerateName.get(namespace + "/" + generateName);
    if (keys == null) {
      return List.of();
    }
    List<Pod> result = new ArrayList<>();
    for (String k : keys) {
      Pod p = pods.get(k);
      if (p != null) {
        result.add(p);
      }
    }
    // Live pods first, then by name, so callers get a stable answer.
    result.sort(
        Comparator.comparing((Pod p) -> !isLive(p)).thenComparing(p -> p.getMetadata().getName()));
    return result;
  }

  @Override
  public Optional<ReplicaSet> replicaSet(String namespace, String name) {
    return Optional.ofNullable(replicaSets.get(namespace + "/" + name));
  }

  @Override
  public Optional<Deployment> deployment(String namespace, String name) {
    return Optional.ofNullable(deployments.get(namespace + "/" + name));
  }

  @Override
  public Optional<StatefulSet> statefulSet(String namespace, String name) {
    return Optional.ofNullable(statefulSets.get(namespace + "/" + name));
  }

  @Override
  public Optional<DaemonSet> daemonSet(String namespace, String name) {
    return Optional.ofNullable(daemonSets.get(namespace + "/" + name));
  }

  @Override
  public Optional<Job> job(String namespace, String name) {
    return Optional.ofNullable(jobs.get(namespace + "/" + name));
  }

  @Override
  public Optional<CronJob> cronJob(String namespace, String name) {
    return Optional.ofNullable(cronJobs.get(namespace + "/" + name));
  }

  @Override
  public Map<String, String> namespaceLabels(String namespace) {
    return namespaceLabels.getOrDefault(namespace, Map.of());
  }

  private static String key(HasMetadata o) {
    return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }
}
