package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Refuses every write the moment the lease is lost, so a replica that is still finishing a loop
 * never writes next to the new leader. Also counts writes by operation and kind, and the writes the
 * API server refused by HTTP status (403: RBAC, 422: validation or admission, 409: conflict).
 */
public final class LeaderGuardedWriter implements ClusterWriter {
  private final ClusterWriter delegate;
  private final BooleanSupplier leading;
  private final MeterRegistry meters;

  public LeaderGuardedWriter(
      ClusterWriter delegate, BooleanSupplier leading, MeterRegistry meters) {
    this.delegate = delegate;
    this.leading = leading;
    this.meters = meters;
  }

  private void check(String op, HasMetadata o) {
    if (!leading.getAsBoolean()) {
      throw new NotLeaderException(
          op
              + " "
              + o.getKind()
              + " "
              + o.getMetadata().getNamespace()
              + "/"
              + o.getMetadata().getName());
    }
    meters
        .counter(
            "network.enforcer.writer.api.writes",
            "operation",
            op,
            "kind",
            String.valueOf(o.getKind()))
        .increment();
  }

  /**
   * Runs a write, counting an answer of the API server that refused it; the error goes on
   * unchanged.
   */
  private <T> T counted(String op, HasMetadata o, Supplier<T> write) {
    try {
      return write.get();
    } catch (KubernetesClientException e) {
      // Code 0: no answer (connection failed): not a refusal, the client retries those.
      if (e.getCode() >= 400) {
        meters
            .counter(
                "network.enforcer.writer.api.refusals",
                "operation",
                op,
                "kind",
                String.valueOf(o.getKind()),
                "code",
                Integer.toString(e.getCode()))
            .increment();
      }
      throw e;
    }
  }

  @Override
  public <T extends HasMetadata> T apply(T desired) {
    check("apply", desired);
    return counted("apply", desired, () -> delegate.apply(desired));
  }

  @Override
  public <T extends HasMetadata> T create(T object) {
    check("create", object);
    return counted("create", object, () -> delegate.create(object));
  }

  @Override
  public <T extends HasMetadata> T applyStatus(T desired) {
    check("apply-status", desired);
    return counted("apply-status", desired, () -> delegate.applyStatus(desired));
  }

  @Override
  public <T extends HasMetadata> T updateStatus(T withStatus) {
    check("update-status", withStatus);
    return counted("update-status", withStatus, () -> delegate.updateStatus(withStatus));
  }

  @Override
  public boolean delete(HasMetadata object) {
    check("delete", object);
    return counted("delete", object, () -> delegate.delete(object));
  }

  @Override
  public void removeFinalizer(HasMetadata object, String finalizer) {
    check("remove-finalizer", object);
    counted(
        "remove-finalizer",
        object,
        () -> {
          delegate.removeFinalizer(object, finalizer);
          return null;
        });
  }

  @Override
  public void removeAnnotations(HasMetadata object, Collection<String> keys) {
    check("remove-annotations", object);
    counted(
        "remove-annotations",
        object,
        () -> {
          delegate.removeAnnotations(object, keys);
          return null;
        });
  }

  @Override
  public void close() {
    delegate.close();
  }
}
