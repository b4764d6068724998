package io.kubewarden.networkenforcer.writer.policies;

import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectEvents;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.PermanentError;
import io.kubewarden.networkenforcer.writer.reconcile.Reconciler;
import io.kubewarden.networkenforcer.writer.reconcile.Result;
import io.kubewarden.networkenforcer.writer.reconcile.RetryInfo;
import io.kubewarden.networkenforcer.writer.rendering.NativeRenderer;
import io.kubewarden.networkenforcer.writer.rendering.RenderConditions;
import io.kubewarden.networkenforcer.writer.status.StatusSync;
import java.util.function.Consumer;

/**
 * The reconciler of one WorkloadNetworkPolicy ({@code ns/name}), in the order a reader of the
 * policy expects: publish it to the processor, render its native object, queue the proposals of its
 * target (they are leftovers now), then write its status (due violations, conditions,
 * acknowledgements). A policy that is gone is tombstoned on the topic.
 */
public final class PolicyReconciler implements Reconciler<ObjectKey> {
  private final ClusterCache cache;
  private final PolicyPublisher publisher;
  private final NativeRenderer renderer;
  private final RenderConditions renderConditions;
  private final StatusSync status;
  private final Consumer<ObjectKey> enqueueProposal;
  private final ObjectEvents events;

  public PolicyReconciler(
      ClusterCache cache,
      PolicyPublisher publisher,
      NativeRenderer renderer,
      RenderConditions renderConditions,
      StatusSync status,
      Consumer<ObjectKey> enqueueProposal,
      ObjectEvents events) {
    this.cache = cache;
    this.publisher = publisher;
    this.renderer = renderer;
    this.renderConditions = renderConditions;
    this.status = status;
    this.enqueueProposal = enqueueProposal;
    this.events = events;
  }

  @Override
  public Result reconcile(ObjectKey key) {
    return reconcile(key, RetryInfo.first());
  }

  @Override
  public Result reconcile(ObjectKey key, RetryInfo retry) {
    WorkloadNetworkPolicy wnp = cache.policy(key.namespace(), key.name()).orElse(null);
    if (wnp == null) {
      publisher.deleted(key.toString());
      renderConditions.forget(key.toString());
      status.sync(key, retry); // drops observations that are due for a policy that is gone
      return Result.done();
    }
    publisher.upsert(wnp);
    renderer.render(wnp);
    ClusterCache.targetOf(key.namespace(), wnp.getSpec())
        .ifPresent(
            t -> cache.proposalsFor(t).forEach(p -> enqueueProposal.accept(ObjectKey.of(p))));
    status.sync(key, retry);
    return Result.done();
  }

  @Override
  public void permanentFailure(ObjectKey key, PermanentError error) {
    cache
        .policy(key.namespace(), key.name())
        .ifPresent(wnp -> events.warning(wnp, error.reason(), error.getMessage()));
  }
}
