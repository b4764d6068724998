package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ClusterView} kept current by read-only (list/watch) informers on pods, ReplicaSets,
 * Deployments, StatefulSets, DaemonSets, Jobs, CronJobs and namespaces in every namespace.
 */
public final class InformerClusterView implements ClusterView, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(InformerClusterView.class);

  private final ClusterIndex index = new ClusterIndex();
  private final List<SharedIndexInformer<? extends HasMetadata>> informers = new ArrayList<>();

  private InformerClusterView() {}

  /**
   * Objects per page of an informer's first list, as client-go's reflector pages: listed whole, the
   * pods of a large cluster are one response of hundreds of megabytes, held at once before any is
   * trimmed.
   */
  public static final long LIST_PAGE = 500;

  /** Starts the informers; they fill the view in the background (see {@link #awaitSynced}). */
  public static InformerClusterView start(KubernetesClient client) {
    return start(client, LIST_PAGE);
  }

  /** As {@link #start(KubernetesClient)}, listing {@code page} objects per request. */
  static InformerClusterView start(KubernetesClient client, long page) {
    InformerClusterView view = new InformerClusterView();
    view.watch(client.namespaces(), page);
    view.watch(client.apps().deployments().inAnyNamespace(), page);
    view.watch(client.apps().statefulSets().inAnyNamespace(), page);
    view.watch(client.apps().daemonSets().inAnyNamespace(), page);
    view.watch(client.apps().replicaSets().inAnyNamespace(), page);
    view.watch(client.pods().inAnyNamespace(), page);
    view.watch(client.batch().v1().jobs().inAnyNamespace(), page);
    view.watch(client.batch().v1().cronjobs().inAnyNamespace(), page);
    return view;
  }

  /** Caches only what resolution reads (see {@link TrimmingItemStore}), then starts listing. */
  private <T extends HasMetadata> void watch(Informable<T> objects, long page) {
    SharedIndexInformer<T> informer = objects.withLimit(page).runnableInformer(0);
    informer.itemStore(new TrimmingItemStore<>());
    informer.addEventHandler(handler());
    // fabric8 gives up on an informer whose first list fails (a slow or restarting API server):
    // flows of its pods would then stay unknown for good. Keep retrying, with its back-off.
    informer.exceptionHandler(
        (started, e) -> {
          LOG.warn(
              "listing/watching {} failed, retrying: {}",
              informer.getApiTypeClass().getSimpleName(),
              e.toString());
          return true;
        });
    informers.add(informer);
    informer.start();
  }

  /** True once every informer has listed its objects. */
  public boolean hasSynced() {
    return informers.stream().allMatch(SharedIndexInformer::hasSynced);
  }

  /** Waits for the initial lists; flows resolved earlier would be dropped as unknown. */
  public boolean awaitSynced(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (!hasSynced() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!hasSynced()) {
      LOG.warn(
          "pod and workload informers have not listed everything within {}; flows of unknown pods are "
              + "dropped until they have",
          timeout);
    }
    return hasSynced();
  }

  private <T extends HasMetadata> ResourceEventHandler<T> handler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        index.upsert(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        index.upsert(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        index.remove(obj);
      }
    };
  }

  @Override
  public Optional<Pod> podByName(String namespace, String name) {
    return index.podByName(namespace, name);
  }

  @Override
  public Optional<Pod> podByIp(String ip) {
    return index.podByIp(ip);
  }

  @Override
  public List<Pod> podsByGenerateName(String namespace, String generateName) {
    return index.podsByGenerateName(namespace, generateName);
  }

  @Override
  public Optional<ReplicaSet> replicaSet(String namespace, String name) {
    return index.replicaSet(namespace, name);
  }

  @Override
  public Optional<Deployment> deployment(String namespace, String name) {
    return index.deployment(namespace, name);
  }

  @Override
  public Optional<StatefulSet> statefulSet(String namespace, String name) {
    return index.statefulSet(namespace, name);
  }

  @Override
  public Optional<DaemonSet> daemonSet(String namespace, String name) {
    return index.daemonSet(namespace, name);
  }

  @Override
  public Optional<Job> job(String namespace, String name) {
    return index.job(namespace, name);
  }

  @Override
  public Optional<CronJob> cronJob(String namespace, String name) {
    return index.cronJob(namespace, name);
  }

  @Override
  public Map<String, String> namespaceLabels(String namespace) {
    return index.namespaceLabels(namespace);
  }

  @Override
  public long version() {
    return index.version();
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
