package io.kubewarden.networkenforcer.writer.status;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static io.kubewarden.networkenforcer.writer.Fixtures.violation;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.writer.CacheOnMock;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.MockCluster;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.rendering.RenderConditions;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.logs.LoggerProvider;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The faults of a status sync: conflicts, an unreachable API server, a policy that is gone. */
class StatusSyncTest {
  static final TopicPartition P0 = new TopicPartition("violations", 0);
  static final Instant T = Instant.parse("2026-03-01T10:00:00Z");
  MockCluster cluster;
  KubernetesClient client;
  CacheOnMock cache;
  SimpleMeterRegistry meters;

  @BeforeEach
  void setUp() throws Exception {
    cluster = MockCluster.start();
    client = cluster.client();
    cache = new CacheOnMock(client);
    meters = new SimpleMeterRegistry();
  }

  @AfterEach
  void tearDown() {
    cache.close();
    cluster.close();
  }

  StatusSync sync(ClusterWriter writer) {
    return new StatusSync(client, writer, cache.cache, new RenderConditions(),
        new ViolationEvents(LoggerProvider.noop()), new StatusMerger(), meters, Clock.systemUTC());
  }

  WorkloadNetworkPolicy live() {
    return client.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName("deployment-api-ingress").get();
  }

  @Test
  void aConflictIsRetriedWithAFreshRead() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    MockClusterWriter real = new MockClusterWriter(client);
    AtomicInteger attempts = new AtomicInteger();
    ClusterWriter conflictOnce = new Delegating(real) {
      @Override
      public <T extends HasMetadata> T updateStatus(T o) {
        if (attempts.incrementAndGet() == 1) {
          // Someone else wrote first (the mock does not lock status writes, so the 409 is injected).
          client.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName("deployment-api-ingress")
              .edit(p -> {
                p.getMetadata().setLabels(java.util.Map.of("touched", "yes"));
                return p;
              });
          throw new KubernetesClientException("the object has been modified", 409, null);
        }
        assertThat(o.getMetadata().getLabels()).as("the retry starts from a fresh read")
            .containsEntry("touched", "yes");
        return real.updateStatus(o);
      }
    };
    ViolationBuffer buffer = new ViolationBuffer();
    buffer.add(P0, 0, violation("api", "batch", 9090, T));

    assertThat(sync(conflictOnce).syncAll(buffer)).isTrue();
    assertThat(attempts.get()).isEqualTo(2);
    assertThat(meters.counter("network.enforcer.writer.status.conflicts").count()).isEqualTo(1);
    assertThat(live().getStatus().getViolationCount()).isEqualTo(1);
    assertThat(buffer.size()).isZero();
    assertThat(buffer.committable().get(P0).offset()).isEqualTo(1);
  }

  @Test
  void anUnreachableApiServerKeepsEverythingUncommitted() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    MockClusterWriter writer = new MockClusterWriter(client);
    writer.failWith(new KubernetesClientException("connection refused"));
    ViolationBuffer buffer = new ViolationBuffer();
    buffer.add(P0, 0, violation("api", "batch", 9090, T));
    buffer.add(P0, 1, violation("api", "batch", 9090, T.plusSeconds(1)));

    assertThat(sync(writer).syncAll(buffer)).isFalse();
    assertThat(buffer.size()).isEqualTo(2);
    assertThat(buffer.committable()).isEmpty();

    writer.failWith(null);
    assertThat(sync(writer).syncAll(buffer)).isTrue();
    assertThat(live().getStatus().getViolationCount()).isEqualTo(2);
    assertThat(buffer.committable().get(P0).offset()).isEqualTo(2);
  }

  @Test
  void violationsOfAPolicyThatIsGoneAreCountedAndDropped() {
    ViolationBuffer buffer = new ViolationBuffer();
    buffer.add(P0, 0, violation("gone", "web", 80, T));

    assertThat(sync(new MockClusterWriter(client)).syncAll(buffer)).isTrue();
    assertThat(meters.counter("network.enforcer.writer.violations.dropped", "reason", "policy_missing").count())
        .isEqualTo(1);
    assertThat(buffer.committable().get(P0).offset()).isEqualTo(1);
  }

  @Test
  void aStatusTheApiServerRejectsIsDroppedAndCountedInsteadOfPinningTheOffset() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    MockClusterWriter writer = new MockClusterWriter(client);
    writer.failWith(new KubernetesClientException("status.violations: Invalid value", 422, null));
    ViolationBuffer buffer = new ViolationBuffer();
    buffer.add(P0, 0, violation("api", "batch", 9090, T));

    assertThat(sync(writer).syncAll(buffer)).isTrue();
    assertThat(meters.counter("network.enforcer.writer.violations.dropped", "reason", "status_rejected").count())
        .isEqualTo(1);
    assertThat(buffer.committable().get(P0).offset()).isEqualTo(1);
  }

  /** Forwards every call; tests override the one they disturb. */
  static class Delegating implements ClusterWriter {
    final ClusterWriter d;

    Delegating(ClusterWriter d) {
      this.d = d;
    }

    @Override
    public <T extends HasMetadata> T apply(T o) { return d.apply(o); }
    @Override
    public <T extends HasMetadata> T create(T o) { return d.create(o); }
    @Override
    public <T extends HasMetadata> T applyStatus(T o) { return d.applyStatus(o); }
    @Override
    public <T extends HasMetadata> T updateStatus(T o) { return d.updateStatus(o); }
    @Override
    public boolean delete(HasMetadata o) { return d.delete(o); }
    @Override
    public void removeAnnotations(HasMetadata o, Collection<String> keys) { d.removeAnnotations(o, keys); }
  }
}
