package io.kubewarden.networkenforcer.writer.events;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.rendering.Ownership;
import java.util.Optional;

/** Keys of the objects that own a rendered object: a drift of the object reconciles its owner. */
public final class OwnerKeys {
  private OwnerKeys() {}

  /** The WorkloadNetworkPolicy controlling the object, if one does. */
  public static Optional<ObjectKey> policyOf(HasMetadata o) {
    return Ownership.controllerOf(o)
        .filter(r -> "WorkloadNetworkPolicy".equals(r.getKind()))
        .map(r -> new ObjectKey(o.getMetadata().getNamespace(), r.getName()));
  }
}
