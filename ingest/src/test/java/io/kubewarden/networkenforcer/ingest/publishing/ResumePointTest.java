package io.kubewarden.networkenforcer.ingest.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The resume point of a restarted ingest, read from the flows topic of a real broker. */
class ResumePointTest {
  private static final Duration WINDOW = Duration.ofSeconds(5);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static EmbeddedKafkaBroker broker;
  private static KafkaSettings kafka;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    kafka = new KafkaSettings(broker.bootstrapServers(), "resume.", 3, (short) 1, Map.of());
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      admin.createTopics(List.of(kafka.topics().flows().newTopic(3, (short) 1))).all().get();
    }
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @Test
  void theNewestFlowOfTheProviderOnAnyPartitionLessTheWindowAndAMargin() {
    assertThat(ResumePoint.of(kafka, Provider.cilium, WINDOW, TIMEOUT))
        .as("a first start")
        .isEmpty();

    Instant t0 = Instant.parse("2026-08-03T15:40:00Z");
    Instant newest = t0.plusSeconds(95).plusMillis(250);
    IngestMetrics metrics = new IngestMetrics(new SimpleMeterRegistry());
    try (FlowPublisher publisher = new FlowPublisher(kafka, ProducerTuning.defaults(), metrics)) {
      // 200 flows of 20 workloads (every partition), each seen over 5 s; the newest one last seen
      // at t0 + 95.25 s.
      for (int i = 0; i < 200; i++) {
        Instant first = t0.plusMillis(i * 450L);
        Instant last = i == 199 ? newest : first.plusSeconds(5);
        publisher.accept(flow(Provider.cilium, "client-" + (i % 20), first, last));
      }
      // A later flow of another provider (not ours to resume) and one after the newest that is
      // older.
      publisher.accept(flow(Provider.calico, "other", t0.plusSeconds(500), t0.plusSeconds(500)));
      publisher.accept(flow(Provider.cilium, "client-3", t0, t0.plusSeconds(1)));
      assertThat(publisher.settle()).isTrue();
    }
    assertThat(
            metrics
                .registry()
                .get("network.enforcer.ingest.flows.published")
                .tag("provider", "cilium")
                .counter()
                .count())
        .isEqualTo(201);

    Instant since = newest.minus(WINDOW).minus(ResumePoint.MARGIN);
    assertThat(ResumePoint.of(kafka, Provider.cilium, WINDOW, TIMEOUT)).contains(since);

    // What is already there from the resume point on: flows 168..199 (last seen t0 + 80.6 s on),
    // not 167 (t0 + 80.15 s), not the other provider's, not the old one published last.
    ResumePoint.Resume resume =
        ResumePoint.resume(kafka, Provider.cilium, WINDOW, TIMEOUT).orElseThrow();
    assertThat(resume.since()).isEqualTo(since);
    assertThat(resume.published())
        .hasSize(32)
        .allSatisfy(f -> assertThat(f.provider()).isEqualTo(Provider.cilium))
        .allSatisfy(f -> assertThat(f.lastSeen()).isAfterOrEqualTo(since));
    assertThat(resume.published())
        .extracting(FlowRecord::firstSeen)
        .contains(t0.plusMillis(168 * 450L))
        .doesNotContain(t0.plusMillis(167 * 450L), t0);
  }

  /**
   * Node-local ingest: one writer per node, each resuming from its own records; another node's
   * newer flows would skip this node's gap. A writer with no record in the tail starts from now.
   */
  @Test
  void aNodeLocalWriterResumesFromItsOwnRecordsOnly() throws Exception {
    KafkaSettings nodes =
        new KafkaSettings(broker.bootstrapServers(), "resume-nodes.", 3, (short) 1, Map.of());
    try (Admin admin = Admin.create(nodes.clientConfig())) {
      admin.createTopics(List.of(nodes.topics().flows().newTopic(3, (short) 1))).all().get();
    }
    Instant t0 = Instant.parse("2026-08-03T15:40:00Z");
    IngestMetrics metrics = new IngestMetrics(new SimpleMeterRegistry());
    assertThat(
            FlowPublisher.producerConfig(nodes, ProducerTuning.defaults(), "node/kind-worker")
                .getProperty("client.id"))
        .isEqualTo("network-enforcer-ingest-node-kind-worker");
    try (FlowPublisher a =
            new FlowPublisher(nodes, ProducerTuning.defaults(), metrics, "node/kind-worker");
        FlowPublisher b =
            new FlowPublisher(nodes, ProducerTuning.defaults(), metrics, "node/kind-worker2")) {
      for (int i = 0; i < 6; i++) {
        a.accept(flow(Provider.cilium, "client-" + i, t0, t0.plusSeconds(10 + i)));
        b.accept(flow(Provider.cilium, "client-" + i, t0, t0.plusSeconds(60 + i)));
      }
      assertThat(a.settle()).isTrue();
      assertThat(b.settle()).isTrue();
    }
    assertThat(ResumePoint.of(nodes, Provider.cilium, "node/kind-worker", WINDOW, TIMEOUT))
        .contains(t0.plusSeconds(15).minus(WINDOW).minus(ResumePoint.MARGIN));
    assertThat(ResumePoint.of(nodes, Provider.cilium, "node/kind-worker2", WINDOW, TIMEOUT))
        .contains(t0.plusSeconds(65).minus(WINDOW).minus(ResumePoint.MARGIN));
    assertThat(ResumePoint.of(nodes, Provider.cilium, "node/kind-worker3", WINDOW, TIMEOUT))
        .isEmpty();
  }

  /**
   * A restarted pod whose broker is still starting (the standalone pod's own, or Kafka restarted
   * with it): the first reads time out. The resume waits for the broker instead of starting the
   * stream from now (a gap) or with part of the span (flows published twice).
   */
  @Test
  void aResumeWaitsForABrokerThatIsStillStarting(@TempDir Path dir) throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    EmbeddedKafkaBroker.Builder restartable =
        EmbeddedKafkaBroker.builder().dataDir(dir.resolve("kafka")).port(port);
    Instant t0 = Instant.parse("2026-08-03T15:40:00Z");
    KafkaSettings settings;
    try (EmbeddedKafkaBroker first = restartable.build().start()) {
      settings =
          new KafkaSettings(first.bootstrapServers(), "resume-late.", 3, (short) 1, Map.of());
      try (Admin admin = Admin.create(settings.clientConfig())) {
        admin.createTopics(List.of(settings.topics().flows().newTopic(3, (short) 1))).all().get();
      }
      try (FlowPublisher publisher =
          new FlowPublisher(
              settings, ProducerTuning.defaults(), new IngestMetrics(new SimpleMeterRegistry()))) {
        for (int i = 0; i < 12; i++) {
          publisher.accept(flow(Provider.cilium, "client-" + i, t0, t0.plusSeconds(i)));
        }
        assertThat(publisher.settle()).isTrue();
      }
    }
    // The broker is down when the restarted ingest asks, and back within the attempts' time.
    Duration attempt = Duration.ofSeconds(8);
    CompletableFuture<Optional<ResumePoint.Resume>> resumed =
        CompletableFuture.supplyAsync(
            () -> ResumePoint.resume(settings, Provider.cilium, WINDOW, attempt));
    Thread.sleep(attempt.toMillis() + 2_000); // the first attempt has timed out by now
    assertThat(resumed).as("the first attempt timed out; the resume still waits").isNotDone();
    try (EmbeddedKafkaBroker again = restartable.build().start()) {
      ResumePoint.Resume resume =
          resumed.get(ResumePoint.ATTEMPTS * 60L, TimeUnit.SECONDS).orElseThrow();
      Instant since = t0.plusSeconds(11).minus(WINDOW).minus(ResumePoint.MARGIN);
      assertThat(resume.since()).isEqualTo(since);
      assertThat(resume.published()).hasSize(12);
    }
  }

  private static FlowRecord flow(Provider provider, String client, Instant first, Instant last) {
    return new FlowRecord(
        first,
        provider,
        Protocol.TCP,
        8080,
        workload(client),
        workload("server"),
        Verdict.FORWARDED,
        null,
        1,
        Reporter.SOURCE,
        last);
  }

  private static FlowEndpoint workload(String name) {
    return new FlowEndpoint(
        "demo",
        WorkloadKind.Deployment,
        name,
        null,
        Map.of("app", name),
        Map.of(),
        null,
        null,
        null,
        null,
        null,
        false,
        null,
        null);
  }
}
