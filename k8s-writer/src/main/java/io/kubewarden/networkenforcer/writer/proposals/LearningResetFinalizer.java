package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.Result;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
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

  /** Enough for every proposal of a large cluster deleted within the cache's lag. */
  private static final int FINISHED_REMEMBERED = 10_000;

  private final ClusterWriter writer;
  private final BiConsumer<ObjectKey, WorkloadNetworkPolicyProposal> whoDeleted;

  /**
   * Proposals (by uid) whose finalizer this process removed: the cache may still hold them with it
   * for a moment, and a reconcile of such a stale copy would send the reset again. Kubernetes'
   * controllers keep the same kind of "expectations" of their own writes; nothing here must outlive
   * the process (a new leader reads the finalizer from the cluster).
   */
  private final Set<String> finished =
      Collections.synchronizedSet(
          Collections.newSetFromMap(
              new LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                  return size() > FINISHED_REMEMBERED;
                }
              }));

  /**
   * @param whoDeleted decides whose delete it was and sends the reset if it resets learning ({@link
   *     WhoDeleted#decide})
   */
  LearningResetFinalizer(
      ClusterWriter writer, BiConsumer<ObjectKey, WorkloadNetworkPolicyProposal> whoDeleted) {
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
    String uid = deleted.getMetadata().getUid();
    if (uid != null && finished.contains(uid)) {
      return Result.done(); // a cached copy from before our removal
    }
    whoDeleted.accept(key, deleted);
    writer.removeFinalizer(deleted, NAME);
    if (uid != null) {
      finished.add(uid);
    }
    LOG.debug("proposal {} deleted: finalizer {} removed", key, NAME);
    return Result.done();
  }
}
