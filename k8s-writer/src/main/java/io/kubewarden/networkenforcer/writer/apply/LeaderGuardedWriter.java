package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.function.BooleanSupplier;

/**
 * Refuses every write the moment the lease is lost, so a replica that is still finishing a loop
 * never writes next to the new leader. Also counts writes by operation and kind.
 */
public final class LeaderGuardedWriter implements ClusterWriter {
  private final ClusterWriter delegate;
  private final BooleanSupplier leading;
  private final MeterRegistry meters;

  public LeaderGuardedWriter(ClusterWriter delegate, BooleanSupplier leading, MeterRegistry meters) {
    this.delegate = delegate;
    this.leading = leading;
    this.meters = meters;
  }

  private void check(String op, HasMetadata o) {
    if (!leading.getAsBoolean()) {
      throw new NotLeaderException(op + " " + o.getKind() + " " + o.getMetadata().getNamespace() + "/"
          + o.getMetadata().getName());
    }
    meters.counter("network.enforcer.writer.api.writes", "operation", op, "kind", String.valueOf(o.getKind()))
        .increment();
  }

  @Override
  public <T extends HasMetadata> T apply(T desired) {
    check("apply", desired);
    return delegate.apply(desired);
  }

  @Override
  public <T extends HasMetadata> T create(T object) {
    check("create", object);
    return delegate.create(object);
  }

  @Override
  public <T extends HasMetadata> T applyStatus(T desired) {
    check("apply-status", desired);
    return delegate.applyStatus(desired);
  }

  @Override
  public <T extends HasMetadata> T updateStatus(T withStatus) {
    check("update-status", withStatus);
    return delegate.updateStatus(withStatus);
  }

  @Override
  public boolean delete(HasMetadata object) {
    check("delete", object);
    return delegate.delete(object);
  }

  @Override
  public void removeAnnotations(HasMetadata object, Collection<String> keys) {
    check("remove-annotations", object);
    delegate.removeAnnotations(object, keys);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
