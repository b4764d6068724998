package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The informers every reconcile reads from (policies, proposals and the workloads proposals are
 * owned by) and the {@link ClusterCache} over them. Reconcilers start only once all have synced.
 */
final class ClusterInformers {
  final SharedIndexInformer<WorkloadNetworkPolicy> policies;
  final SharedIndexInformer<WorkloadNetworkPolicyProposal> proposals;
  final ClusterCache cache;
  private final Map<WorkloadKind, SharedIndexInformer<? extends HasMetadata>> workloads =
      new EnumMap<>(WorkloadKind.class);

  ClusterInformers(KubernetesClient client, Duration resyncPeriod) {
    long resync = resyncPeriod.toMillis();
    policies =
        client.resources(WorkloadNetworkPolicy.class).inAnyNamespace().runnableInformer(resync);
    policies.addIndexers(ClusterCache.targetIndex());
    proposals =
        client
            .resources(WorkloadNetworkPolicyProposal.class)
            .inAnyNamespace()
            .runnableInformer(resync);
    // Proposals take their owner's uid from here: no GET per proposal record.
    workloads.put(
        WorkloadKind.Deployment, client.apps().deployments().inAnyNamespace().runnableInformer(0));
    workloads.put(
        WorkloadKind.StatefulSet,
        client.apps().statefulSets().inAnyNamespace().runnableInformer(0));
    workloads.put(
        WorkloadKind.DaemonSet, client.apps().daemonSets().inAnyNamespace().runnableInformer(0));
    workloads.put(
        WorkloadKind.CronJob, client.batch().v1().cronjobs().inAnyNamespace().runnableInformer(0));
    cache = new ClusterCache(policies, proposals, workloads);
  }

  List<SharedIndexInformer<?>> all() {
    List<SharedIndexInformer<?>> all = new ArrayList<>(List.of(policies, proposals));
    all.addAll(workloads.values());
    return all;
  }

  /** Starts them and waits until each has listed its objects. */
  void startAndSync(Duration timeout) throws Exception {
    for (SharedIndexInformer<?> i : all()) {
      i.start().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
