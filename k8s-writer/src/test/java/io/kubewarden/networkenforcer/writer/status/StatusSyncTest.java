package io.kubewarden.networkenforcer.writer.status;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static io.kubewarden.networkenforcer.writer.Fixtures.violation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.CacheOnMock;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.MockCluster;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.PermanentError;
import io.kubewarden.networkenforcer.writer.reconcile.RetryInfo;
import io.kubewarden.networkenforcer.writer.rendering.RenderConditions;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.logs.LoggerProvider;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The faults of a status sync: conflicts, an unreachable API server, a policy that is gone. */
public class StatusSyncTest {
  static final TopicPartition P0 = new TopicPartition("violations", 0);
  static final Instant T = Instant.parse("2026-03-01T10:00:00Z");
  MockCluster cluster;
  KubernetesClient client;
  CacheOnMock cache;
  SimpleMeterRegistry meters;

  /** Acknowledges every send at once. */
  MockProducer<byte[], byte[]> deadLetterProducer;

  @BeforeEach
  void setUp() throws Exception {
    cluster = MockCluster.start();
    client = cluster.client();
    cache = new CacheOnMock(client);
    meters = new SimpleMeterRegistry();
    deadLetterProducer =
        new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
  }

  @AfterEach
  void tearDown() {
    cache.close();
    cluster.close();
  }

  static final ObjectKey API = new ObjectKey(NS, "deployment-api-ingress");

  /**
   * Syncs every buffered policy, as the policy reconcilers do once the interval is due; false when
   * one failed.
   */
  boolean syncAll(ClusterWriter writer, ViolationBuffer buffer) {
    StatusSync sync =
        new StatusSync(
            client,
            writer,
            cache.cache,
            buffer,
            new RenderConditions(),
            new ViolationEvents(LoggerProvider.noop()),
            new StatusMerger(),
            meters,
            Clock.systemUTC(),
            new DeadLetters(deadLetterProducer, new Topics("").deadLetter(), meters));
    boolean ok = true;
    for (String key : buffer.markAllDue()) {
      try {
        sync.sync(ObjectKey.parse(key), RetryInfo.first());
      } catch (PermanentError e) {
        // reported on the object by the controller; the observations are released
      } catch (RuntimeException e) {
        ok = false;
      }
    }
    return ok;
  }

  WorkloadNetworkPolicy live() {
    return client
        .resources(WorkloadNetworkPolicy.class)
        .inNamespace(NS)
        .withName("deployment-api-ingress")
        .get();
  }

  @Test
  void theEventsOfTheRecordsAreExportedBeforeTheStatusThatCommitsThemIsWritten() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    InMemoryLogRecordExporter exported = InMemoryLogRecordExporter.create();
    // An hour between scheduled exports: only a flush sends the event before the write.
    try (SdkLoggerProvider provider =
        SdkLoggerProvider.builder()
            .addLogRecordProcessor(
                BatchLogRecordProcessor.builder(exported)
                    .setScheduleDelay(Duration.ofHours(1))
                    .build())
            .build()) {
      ViolationEvents events = new ViolationEvents(provider);
      ViolationBuffer buffer = new ViolationBuffer();
      var observation = violation("api", "batch", 9090, T);
      events.observed(new SourcedObservation(P0.topic(), P0.partition(), 0, observation));
      buffer.add(P0, 0, observation);
      AtomicInteger exportedAtWrite = new AtomicInteger(-1);
      ClusterWriter writer =
          new Delegating(new MockClusterWriter(client)) {
            @Override
            public <T extends HasMetadata> T updateStatus(T o) {
              exportedAtWrite.set(exported.getFinishedLogRecordItems().size());
              return d.updateStatus(o);
            }
          };
      StatusSync sync =
          new StatusSync(
              client,
              writer,
              cache.cache,
              buffer,
              new RenderConditions(),
              events,
              new StatusMerger(),
              meters,
              Clock.systemUTC(),
              new DeadLetters(deadLetterProducer, new Topics("").deadLetter(), meters));
      for (String key : buffer.markAllDue()) {
        sync.sync(ObjectKey.parse(key), RetryInfo.first());
      }
      assertThat(exportedAtWrite.get())
          .as("events exported when the status was written")
          .isEqualTo(1);
      assertThat(live().getStatus().getViolationCount()).isEqualTo(1);
    }
  }

  @Test
  void aConflictIsRetriedWithAFreshRead() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    MockClusterWriter real = new MockClusterWriter(client);
    AtomicInteger attempts = new AtomicInteger();
    ClusterWriter conflictOnce =
        new Delegating(real) {
          @Override
          public <T extends HasMetadata> T updateStatus(T o) {
            if (attempts.incrementAndGet() == 1) {
              // Someone else wrote first (the mock does not lock status writes, so the 409 is
              // injected).
              client
                  .resources(WorkloadNetworkPolicy.class)
                  .inNamespace(NS)
                  .withName("deployment-api-ingress")
                  .edit(
                      p -> {
                        p.getMetadata().setLabels(Map.of("touched", "yes"));
                        return p;
                      });
              throw new KubernetesClientException("the object has been modified", 409, null);
            }
            assertThat(o.getMetadata().getLabels())
                .as("the retry starts from a fresh read")
                .containsEntry("touched", "yes");
            return real.updateStatus(o);
          }
        };
    ViolationBuffer buffer = new ViolationBuffer();
    buffer.add(P0, 0, violation("api", "batch", 9090, T));

    assertThat(syncAll(conflictOnce, buffer)).isTrue();
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

    assertThat(syncAll(writer, buffer)).isFalse();
    assertThat(buffer.size()).isEqualTo(2);
    assertThat(buffer.committable()).isEmpty();

    writer.failWith(null);
    assertThat(syncAll(writer, buffer)).isTrue();
    assertThat(live().getStatus().getViolationCount()).isEqualTo(2);
    assertThat(buffer.committable().get(P0).offset()).isEqualTo(2);
  }

  @Test
  void violationsOfAPolicyThatIsGoneAreCountedAndDropped() {
    ViolationBuffer buffer = new ViolationBuffer();
    buffer.add(P0, 0, violation("gone", "web", 80, T));

    assertThat(syncAll(new MockClusterWriter(client), buffer)).isTrue();
    assertThat(
            meters
                .counter("network.enforcer.writer.violations.dropped", "reason", "policy_missing")
                .count())
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

    assertThat(syncAll(writer, buffer)).isTrue();
    assertThat(
            meters
                .counter("network.enforcer.writer.violations.dropped", "reason", "status_rejected")
                .count())
        .isEqualTo(1);
    assertThat(buffer.committable().get(P0).offset()).isEqualTo(1);
  }

  @Test
  void aForbiddenOrTooLargeStatusIsDroppedAtOnceInsteadOfRetriedForever() throws Exception {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    MockClusterWriter writer = new MockClusterWriter(client);
    ViolationBuffer buffer = new ViolationBuffer();
    StatusSync sync = sync(writer, buffer);
    long offset = 0;
    for (int code : new int[] {403, 413}) {
      writer.failWith(new KubernetesClientException("refused", code, null));
      buffer.add(P0, offset++, violation("api", "batch", 9090, T));
      buffer.markAllDue();
      assertThatThrownBy(() -> sync.sync(API, RetryInfo.first()))
          .as("HTTP %d", code)
          .isInstanceOf(PermanentError.class);
      assertThat(buffer.committable().get(P0).offset()).isEqualTo(offset);
    }
    assertThat(
            meters
                .counter("network.enforcer.writer.violations.dropped", "reason", "status_rejected")
                .count())
        .isEqualTo(2);
    // Parked, not lost: each observation on the dead-letter topic with where it was read and why.
    assertThat(deadLetterProducer.history())
        .satisfiesExactly(
            r ->
                assertThat(DeadLetterHeaders.get(r.headers(), DeadLetterHeaders.REASON))
                    .contains("(403)"),
            r ->
                assertThat(DeadLetterHeaders.get(r.headers(), DeadLetterHeaders.REASON))
                    .contains("(413)"));
    assertThat(deadLetterProducer.history())
        .extracting(r -> DeadLetterHeaders.get(r.headers(), DeadLetterHeaders.ORIGIN_OFFSET))
        .containsExactly("0", "1");
    assertThat(
            Json.mapper()
                .readValue(deadLetterProducer.history().get(0).value(), ViolationObservation.class))
        .isEqualTo(violation("api", "batch", 9090, T));
  }

  @Test
  void anInternalErrorIsRetriedABoundedNumberOfTimesThenDropped() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    MockClusterWriter writer = new MockClusterWriter(client);
    writer.failWith(
        new KubernetesClientException("Internal error occurred: admission webhook", 500, null));
    ViolationBuffer buffer = new ViolationBuffer();
    buffer.add(P0, 0, violation("api", "batch", 9090, T));
    buffer.markAllDue();
    StatusSync sync = sync(writer, buffer);
    for (int attempt = 1; attempt < StatusSync.SERVER_ERROR_ATTEMPTS; attempt++) {
      RetryInfo retry =
          new RetryInfo(attempt - 1); // the policies queue counts the failures in a row
      assertThatThrownBy(() -> sync.sync(API, retry)).isInstanceOf(KubernetesClientException.class);
      assertThat(buffer.committable()).as("attempt %d keeps the offset", attempt).isEmpty();
    }
    RetryInfo last = new RetryInfo(StatusSync.SERVER_ERROR_ATTEMPTS - 1);
    assertThatThrownBy(() -> sync.sync(API, last)).isInstanceOf(PermanentError.class);
    assertThat(buffer.committable().get(P0).offset()).isEqualTo(1);
  }

  @Test
  void anUnavailableApiServerIsRetriedWithoutBound() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    MockClusterWriter writer = new MockClusterWriter(client);
    writer.failWith(new KubernetesClientException("etcd unavailable", 503, null));
    ViolationBuffer buffer = new ViolationBuffer();
    buffer.add(P0, 0, violation("api", "batch", 9090, T));
    buffer.markAllDue();
    StatusSync sync = sync(writer, buffer);
    for (int attempt = 1; attempt <= 3 * StatusSync.SERVER_ERROR_ATTEMPTS; attempt++) {
      RetryInfo retry = new RetryInfo(attempt - 1);
      assertThatThrownBy(() -> sync.sync(API, retry)).isInstanceOf(KubernetesClientException.class);
    }
    assertThat(buffer.committable()).isEmpty();
    writer.failWith(null);
    sync.sync(API, new RetryInfo(3 * StatusSync.SERVER_ERROR_ATTEMPTS));
    assertThat(live().getStatus().getViolationCount()).isEqualTo(1);
    assertThat(buffer.committable().get(P0).offset()).isEqualTo(1);
  }

  StatusSync sync(ClusterWriter writer, ViolationBuffer buffer) {
    return new StatusSync(
        client,
        writer,
        cache.cache,
        buffer,
        new RenderConditions(),
        new ViolationEvents(LoggerProvider.noop()),
        new StatusMerger(),
        meters,
        Clock.systemUTC(),
        new DeadLetters(deadLetterProducer, new Topics("").deadLetter(), meters));
  }

  @Test
  void recordsReadAgainAfterAHandOverAreNotCountedTwice() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    MockClusterWriter writer = new MockClusterWriter(client);
    ViolationBuffer first = new ViolationBuffer();
    for (int i = 0; i < 5; i++) {
      first.add(P0, i, violation("api", "w" + i, 9090, T.plusSeconds(i)));
    }
    assertThat(syncAll(writer, first)).isTrue();
    assertThat(live().getStatus().getViolationCount()).isEqualTo(5);
    assertThat(live().getStatus().getMergedOffsets())
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.getTopic()).isEqualTo(P0.topic());
              assertThat(m.getPartition()).isEqualTo(P0.partition());
              assertThat(m.getOffset()).isEqualTo(5);
            });

    // The writer died before committing: the next leader reads offsets 0..6 again (5 and 6 are
    // new).
    ViolationBuffer reread = new ViolationBuffer();
    for (int i = 0; i < 7; i++) {
      reread.add(P0, i, violation("api", "w" + i, 9090, T.plusSeconds(i)));
    }
    assertThat(syncAll(writer, reread)).isTrue();
    assertThat(live().getStatus().getViolationCount()).as("exactly once: 7, not 12").isEqualTo(7);
    assertThat(live().getStatus().getViolations()).hasSize(7);
    assertThat(live().getStatus().getMergedOffsets().get(0).getOffset()).isEqualTo(7);
    assertThat(meters.counter("network.enforcer.writer.violations.already.merged").count())
        .isEqualTo(5);
    assertThat(reread.committable().get(P0).offset()).isEqualTo(7);
  }

  /** Forwards every call; tests override the one they disturb. */
  public static class Delegating implements ClusterWriter {
    protected final ClusterWriter d;

    public Delegating(ClusterWriter d) {
      this.d = d;
    }

    @Override
    public <T extends HasMetadata> T apply(T o) {
      return d.apply(o);
    }

    @Override
    public <T extends HasMetadata> T create(T o) {
      return d.create(o);
    }

    @Override
    public <T extends HasMetadata> T applyStatus(T o) {
      return d.applyStatus(o);
    }

    @Override
    public <T extends HasMetadata> T updateStatus(T o) {
      return d.updateStatus(o);
    }

    @Override
    public boolean delete(HasMetadata o) {
      return d.delete(o);
    }

    @Override
    public void removeFinalizer(HasMetadata o, String finalizer) {
      d.removeFinalizer(o, finalizer);
    }

    @Override
    public void removeAnnotations(HasMetadata o, Collection<String> keys) {
      d.removeAnnotations(o, keys);
    }
  }
}
