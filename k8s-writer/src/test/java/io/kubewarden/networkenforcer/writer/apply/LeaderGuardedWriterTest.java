package io.kubewarden.networkenforcer.writer.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Writes are refused without the lease, counted by operation and kind, and refusals by HTTP code.
 */
class LeaderGuardedWriterTest {
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final AtomicBoolean leading = new AtomicBoolean(true);
  private final NetworkPolicy policy =
      new NetworkPolicyBuilder()
          .withNewMetadata()
          .withNamespace("shop")
          .withName("cart")
          .endMetadata()
          .build();

  @Test
  void aWriteTheApiServerRefusesIsCountedByCodeAndRethrownUnchanged() {
    KubernetesClientException forbidden =
        new KubernetesClientException(
            new StatusBuilder().withCode(403).withMessage("forbidden").build());
    LeaderGuardedWriter writer =
        new LeaderGuardedWriter(failingWith(forbidden), leading::get, meters);

    assertThatThrownBy(() -> writer.apply(policy)).isSameAs(forbidden);
    assertThatThrownBy(() -> writer.apply(policy)).isSameAs(forbidden);

    assertThat(
            meters
                .get("network.enforcer.writer.api.refusals")
                .tags("operation", "apply", "kind", "NetworkPolicy", "code", "403")
                .counter()
                .count())
        .isEqualTo(2.0);
    assertThat(
            meters
                .get("network.enforcer.writer.api.writes")
                .tags("operation", "apply")
                .counter()
                .count())
        .isEqualTo(2.0);
  }

  @Test
  void noAnswerIsNoRefusal() {
    KubernetesClientException unreachable = new KubernetesClientException("connection refused");
    LeaderGuardedWriter writer =
        new LeaderGuardedWriter(failingWith(unreachable), leading::get, meters);

    assertThatThrownBy(() -> writer.delete(policy)).isSameAs(unreachable);

    assertThat(meters.find("network.enforcer.writer.api.refusals").counters()).isEmpty();
  }

  @Test
  void withoutTheLeaseNothingIsWrittenNorCounted() {
    leading.set(false);
    LeaderGuardedWriter writer =
        new LeaderGuardedWriter(
            failingWith(new IllegalStateException("must not run")), leading::get, meters);

    assertThatThrownBy(() -> writer.updateStatus(policy)).isInstanceOf(NotLeaderException.class);

    assertThat(meters.find("network.enforcer.writer.api.writes").counters()).isEmpty();
    assertThat(meters.find("network.enforcer.writer.api.refusals").counters()).isEmpty();
  }

  private static ClusterWriter failingWith(RuntimeException error) {
    return new ClusterWriter() {
      @Override
      public <T extends HasMetadata> T apply(T desired) {
        throw error;
      }

      @Override
      public <T extends HasMetadata> T create(T object) {
        throw error;
      }

      @Override
      public <T extends HasMetadata> T applyStatus(T desired) {
        throw error;
      }

      @Override
      public <T extends HasMetadata> T updateStatus(T withStatus) {
        throw error;
      }

      @Override
      public boolean delete(HasMetadata object) {
        throw error;
      }

      @Override
      public void removeFinalizer(HasMetadata object, String finalizer) {
        throw error;
      }

      @Override
      public void removeAnnotations(HasMetadata object, Collection<String> keys) {
        throw error;
      }
    };
  }
}
