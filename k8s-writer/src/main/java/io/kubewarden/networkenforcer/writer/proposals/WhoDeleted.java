package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.policies.PolicyPublisher;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whose delete was it? Decided from the cluster and the topic: a policy for the target (promotion,
 * leftover), the promote label (promotion) or a reset on the proposals topic (the processor's own
 * reset) mean learning goes on. A workload that is gone (garbage collection) or a person's delete
 * (to start learning over) reset learning of the target.
 */
final class WhoDeleted {
  private static final Logger LOG = LoggerFactory.getLogger(WhoDeleted.class);

  /**
   * How long the pods of a deleted workload may go on sending flows: they terminate within their
   * grace period (30 s by default), and their flows reach the processor seconds later. The reset of
   * a gone workload is dated this much ahead, so those flows do not learn the gone target again. A
   * workload created again under the same name within it learns from its flows after that.
   */
  static final Duration TERMINATING_PODS = Duration.ofMinutes(2);

  private final ClusterCache cache;
  private final DesiredProposals desired;
  private final PolicyPublisher publisher;

  WhoDeleted(ClusterCache cache, DesiredProposals desired, PolicyPublisher publisher) {
    this.cache = cache;
    this.desired = desired;
    this.publisher = publisher;
  }

  void decide(ObjectKey key, WorkloadNetworkPolicyProposal last) {
    Optional<TargetKey> target = ClusterCache.targetOf(key.namespace(), last.getSpec());
    if (target.isEmpty()) {
      return;
    }
    Map<String, String> labels =
        last.getMetadata().getLabels() == null ? Map.of() : last.getMetadata().getLabels();
    String why;
    if (cache.policyFor(target.get()).isPresent()) {
      why = "a policy covers the target";
    } else if (labels.containsKey(Labels.PROMOTE)) {
      why = "promoted";
    } else if (desired.resetByTopic(key)) {
      why = "reset by the processor";
    } else if (cache
        .workload(target.get().workload())
        .filter(w -> w.getMetadata().getDeletionTimestamp() == null)
        .isEmpty()) {
      // The garbage collector (also in a foreground deletion of the workload): the processor drops
      // what it learned of the target, or a cluster where workloads come and go (Jobs, preview
      // environments) would keep every gone target's allow-list and evidence for good. A workload
      // created again under the same name learns anew, as its new proposal shows.
      publisher.resetLearning(
          target.get(), "the workload of proposal " + key + " was deleted", TERMINATING_PODS);
      return;
    } else {
      publisher.resetLearning(target.get(), "proposal " + key + " was deleted by hand");
      return;
    }
    LOG.debug("proposal {} deleted: {}; learning goes on", key, why);
  }
}
