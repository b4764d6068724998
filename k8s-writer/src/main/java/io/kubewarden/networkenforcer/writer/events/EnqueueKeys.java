package io.kubewarden.networkenforcer.writer.events;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * An informer's events as keys on a controller's queue, and nothing else: the filters say which
 * events count ({@link EventFilters}), the key function which object is reconciled (the object
 * itself, or its owner). Nothing of the object is kept: what must outlive a delete event is kept in
 * the cluster (a finalizer).
 */
public final class EnqueueKeys<T extends HasMetadata> implements ResourceEventHandler<T> {
  private final Consumer<ObjectKey> queue;
  private Function<T, Optional<ObjectKey>> keyOf = o -> Optional.of(ObjectKey.of(o));
  private Predicate<T> adds = EventFilters.always();
  private BiPredicate<T, T> updates = EventFilters.anyUpdate();

  private EnqueueKeys(Consumer<ObjectKey> queue) {
    this.queue = queue;
  }

  /** Every add, update and delete queues the object's own key. */
  public static <T extends HasMetadata> EnqueueKeys<T> to(Consumer<ObjectKey> queue) {
    return new EnqueueKeys<>(queue);
  }

  public EnqueueKeys<T> keyedBy(Function<T, Optional<ObjectKey>> keyOf) {
    this.keyOf = keyOf;
    return this;
  }

  public EnqueueKeys<T> addsWhen(Predicate<T> filter) {
    this.adds = filter;
    return this;
  }

  public EnqueueKeys<T> updatesWhen(BiPredicate<T, T> filter) {
    this.updates = filter;
    return this;
  }

  @Override
  public void onAdd(T o) {
    if (adds.test(o)) {
      keyOf.apply(o).ifPresent(queue);
    }
  }

  @Override
  public void onUpdate(T old, T o) {
    if (updates.test(old, o)) {
      keyOf.apply(o).ifPresent(queue);
    }
  }

  @Override
  public void onDelete(T o, boolean unknownFinalState) {
    keyOf.apply(o).ifPresent(queue);
  }
}
