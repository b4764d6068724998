package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A {@link ClusterCache} over running informers, as the leader session builds it. */
public final class CacheOnMock implements AutoCloseable {
  public final SharedIndexInformer<WorkloadNetworkPolicy> policies;
  public final SharedIndexInformer<WorkloadNetworkPolicyProposal> proposals;
  public final ClusterCache cache;
  public final Map<WorkloadKind, SharedIndexInformer<? extends HasMetadata>> workloads =
      new EnumMap<>(WorkloadKind.class);

  public CacheOnMock(KubernetesClient client) throws Exception {
    policies = client.resources(WorkloadNetworkPolicy.class).inAnyNamespace().runnableInformer(0);
    policies.addIndexers(ClusterCache.targetIndex());
    proposals =
        client.resources(WorkloadNetworkPolicyProposal.class).inAnyNamespace().runnableInformer(0);
    policies.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    proposals.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    workloads.put(
        WorkloadKind.Deployment, client.apps().deployments().inAnyNamespace().runnableInformer(0));
    workloads.put(
        WorkloadKind.StatefulSet,
        client.apps().statefulSets().inAnyNamespace().runnableInformer(0));
    workloads.put(
        WorkloadKind.DaemonSet, client.apps().daemonSets().inAnyNamespace().runnableInformer(0));
    for (SharedIndexInformer<?> i : workloads.values()) {
      i.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    cache = new ClusterCache(policies, proposals, workloads);
  }

  @Override
  public void close() {
    policies.stop();
    proposals.stop();
    workloads.values().forEach(SharedIndexInformer::stop);
  }
}
