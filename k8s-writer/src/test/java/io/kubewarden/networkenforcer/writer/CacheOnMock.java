package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import java.util.concurrent.TimeUnit;

/** A {@link ClusterCache} over running informers, as the leader session builds it. */
public final class CacheOnMock implements AutoCloseable {
  public final SharedIndexInformer<WorkloadNetworkPolicy> policies;
  public final SharedIndexInformer<WorkloadNetworkPolicyProposal> proposals;
  public final ClusterCache cache;

  public CacheOnMock(KubernetesClient client) throws Exception {
    policies = client.resources(WorkloadNetworkPolicy.class).inAnyNamespace().runnableInformer(0);
    policies.addIndexers(ClusterCache.targetIndex());
    proposals = client.resources(WorkloadNetworkPolicyProposal.class).inAnyNamespace().runnableInformer(0);
    policies.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    proposals.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    cache = new ClusterCache(policies, proposals);
  }

  @Override
  public void close() {
    policies.stop();
    proposals.stop();
  }
}
