package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.Result;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The finalizer {@value #NAME} the writer puts on every proposal it creates or adopts, so that a
 * person's delete, which resets learning of the target, outlives the leader that saw it: the API
 * server keeps the deleted proposal (with its {@code deletionTimestamp}) until a reconcile, by
 * whichever leader, has decided whose delete it was ({@link WhoDeleted}), sent the reset if it was
 * a person's, and removed the finalizer. A failed send throws before the removal, so the key is
 * tried again. The writer's own deletes (promotion, leftover, the processor's reset) go the same
 * way, and the cluster says they were not a person's (the promote label, the policy, the topic's
 * reset). Removing the finalizer before its own delete would race: the update event of the removal,
 * reconciled before the delete event arrives, would adopt the proposal again, or apply it anew once
 * it is gone.
 */
public final class LearningResetFinalizer {
  private static final Logger LOG = LoggerFactory.getLogger(LearningResetFinalizer.class);

  public static final String NAME = Labels.PREFIX + "learning-reset";

  private final ClusterWriter writer;
  private final WhoDeleted whoDeleted;

  LearningResetFinalizer(ClusterWriter writer, WhoDeleted whoDeleted) {
    this.writer = writer;
    this.whoDeleted = whoDeleted;
  }

  static boolean held(WorkloadNetworkPolicyProposal p) {
    List<String> finalizers = p.getMetadata().getFinalizers();
    return finalizers != null && finalizers.contains(NAME);
  }

  static boolean deleting(WorkloadNetworkPolicyProposal p) {
    return p.getMetadata().getDeletionTimestamp() != null;
  }

  /** A deleted proposal: the reset if a person deleted it, then it may go. */
  Result finish(ObjectKey key, WorkloadNetworkPolicyProposal deleted) {
    if (!held(deleted)) {
      return Result.done(); // another finalizer holds it, or ours is removed already
    }
    whoDeleted.decide(key, deleted);
    writer.removeFinalizer(deleted, NAME);
    LOG.debug("proposal {} deleted: finalizer {} removed", key, NAME);
    return Result.done();
  }
}
