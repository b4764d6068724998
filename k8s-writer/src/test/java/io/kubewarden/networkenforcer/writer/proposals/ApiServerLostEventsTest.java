package io.kubewarden.networkenforcer.writer.proposals;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.LostEvents;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.KafkaTopics;
import io.kubewarden.networkenforcer.writer.SimulatedClock;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Live lost events on a real kube-apiserver with the chart's CRDs, admission policies and RBAC: the
 * loss the ingest published is kept on the proposal's status with its exact counts, and holds
 * {@code Converged} false across the window with loss, until a quiet period without loss has
 * passed. Time is the writer's clock, moved by the test (days, no sleeps); the processor's evidence
 * flushes are the proposal records published again. A hand-over in between counts nothing twice.
 */
class ApiServerLostEventsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PREFIX = "loss.";
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final Topics TOPICS = new Topics(PREFIX);
  private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");
  private static final String NAME = "deployment-api-ingress";

  private static EmbeddedKafkaBroker broker;
  private static ChartedApiServer cluster;
  private static KubernetesClient writerClient;
  private static WriterService writer;
  private static final SimulatedClock CLOCK = new SimulatedClock(T0);
  private static int published;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster = ChartedApiServer.start(NS);
    KafkaTopics.create(broker.bootstrapServers(), TOPICS, 1);
    cluster.admin().resource(Fixtures.deployment("api")).create();
    writerClient = cluster.writerClient(RELEASE);
    writer = startWriter("writer-0");
  }

  private static WriterService startWriter(String identity) {
    WriterConfig config =
        WriterConfig.builder()
            .namespace(ChartedApiServer.RELEASE_NAMESPACE)
            .leaseName(ChartedApiServer.leaseName(RELEASE))
            .identity(identity)
            .leaseDuration(Duration.ofSeconds(4))
            .renewDeadline(Duration.ofSeconds(3))
            .retryPeriod(Duration.ofMillis(300))
            .statusUpdateInterval(Duration.ofMillis(500))
            .consumerGroup(PREFIX + "writer")
            .convergenceQuietPeriod(Duration.ofDays(7))
            .kafka(new KafkaSettings(broker.bootstrapServers(), PREFIX, 1, (short) 1, Map.of()))
            .build()
            .validate();
    WriterService started =
        new WriterService(
            writerClient,
            config,
            new ServerSideApplyWriter(writerClient, config.fieldManager()),
            TelemetryExport.create(TelemetrySettings.disabled(), config.namespace()),
            new SimpleMeterRegistry(),
            CLOCK);
    started.start();
    await().atMost(WAIT).until(started::isLeader);
    return started;
  }

  @AfterAll
  static void stop() {
    if (writer != null) {
      writer.close();
    }
    if (writerClient != null) {
      writerClient.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void lossIsKeptOnTheStatusAndHoldsConvergedFalseUntilAQuietPeriodWithoutLoss() throws Exception {
    // The processor says: converged since 20 February (no new peer or port for 7 days).
    Instant learnedSince = Instant.parse("2026-02-20T00:00:00Z");
    flushEvidence(learnedSince);
    await()
        .atMost(WAIT)
        .until(() -> converged().filter(c -> "True".equals(c.getStatus())).isPresent());
    assertThat(converged().get().getLastTransitionTime()).isEqualTo("2026-02-20T00:00:00Z");
    assertThat(proposal().getStatus().getLostEvents()).isNull();

    // The data plane loses events on two nodes (two windows of kind-worker, one of kind-worker2).
    loss(new DataPlaneLoss(Provider.cilium, "kind/kind-worker", T0, T0.plusSeconds(5), 25, 1));
    loss(
        new DataPlaneLoss(
            Provider.cilium, "kind/kind-worker", T0.plusSeconds(6), T0.plusSeconds(10), 15, 3));
    loss(
        new DataPlaneLoss(
            Provider.cilium, "kind/kind-worker2", T0.plusSeconds(3), T0.plusSeconds(3), 2, 1));
    await()
        .atMost(WAIT)
        .until(() -> lostEvents().stream().mapToLong(LostEvents::getLostEvents).sum() == 42);
    assertThat(lostEvents())
        .containsExactly(
            new LostEvents(
                "cilium", "kind/kind-worker", 40, "2026-03-01T00:00:00Z", "2026-03-01T00:00:10Z"),
            new LostEvents(
                "cilium", "kind/kind-worker2", 2, "2026-03-01T00:00:03Z", "2026-03-01T00:00:03Z"));
    assertThat(converged())
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getReason()).isEqualTo("EventsLost");
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-03-01T00:00:10Z");
              assertThat(c.getMessage())
                  .contains("lost 42 events")
                  .contains("converge at 2026-03-08T00:00:10Z")
                  .contains("quiet period 7d");
            });
    // The processor's own verdict is kept beside it while the loss holds it.
    assertThat(condition("LearningSettled"))
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-02-20T00:00:00Z");
            });

    // A hand-over: the next leader reads the loss from the topic again and counts it once, not
    // twice.
    writer.close();
    writer = startWriter("writer-1");
    flushEvidence(learnedSince);
    assertThat(lostEvents()).extracting(LostEvents::getLostEvents).containsExactly(40L, 2L);
    assertThat(converged())
        .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("EventsLost"));

    // Six days later, the processor flushes evidence again (still converged for it): still held.
    CLOCK.set(T0.plus(Duration.ofDays(6)));
    flushEvidence(learnedSince);
    assertThat(converged())
        .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("EventsLost"));
    assertThat(lostEvents()).extracting(LostEvents::getLostEvents).containsExactly(40L, 2L);

    // More loss on day 6: the window with loss goes on, the quiet period starts again from it.
    Instant day6 = T0.plus(Duration.ofDays(6));
    loss(new DataPlaneLoss(Provider.cilium, "kind/kind-worker", day6, day6.plusSeconds(1), 1, 1));
    await()
        .atMost(WAIT)
        .until(() -> lostEvents().stream().mapToLong(LostEvents::getLostEvents).sum() == 43);
    assertThat(converged())
        .hasValueSatisfying(
            c -> assertThat(c.getMessage()).contains("converge at 2026-03-14T00:00:01Z"));

    // Day 12: the first windows are more than a quiet period old; only the day-6 loss holds it.
    CLOCK.set(T0.plus(Duration.ofDays(12)));
    flushEvidence(learnedSince);
    assertThat(lostEvents())
        .containsExactly(
            new LostEvents(
                "cilium", "kind/kind-worker", 1, "2026-03-07T00:00:00Z", "2026-03-07T00:00:01Z"));
    assertThat(converged()).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("False"));

    // Day 13 and a second: a quiet period without loss has passed. The writer lifts the hold by
    // itself (no new record needed); Converged since the hold ended.
    CLOCK.set(Instant.parse("2026-03-14T00:00:02Z"));
    await()
        .atMost(WAIT)
        .until(() -> converged().filter(c -> "True".equals(c.getStatus())).isPresent());
    assertThat(converged())
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getReason()).isEqualTo("QuietPeriodPassed");
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-03-14T00:00:01Z");
            });
    assertThat(proposal().getStatus().getLostEvents()).isNull();
    assertThat(condition("LearningSettled")).isEmpty();
    assertThat(proposal().getStatus().getConditions())
        .extracting(Condition::getType)
        .containsExactly("Ready", "Converged");
  }

  /** The processor's record (converged since {@code since}), applied before this returns. */
  private static void flushEvidence(Instant since) throws Exception {
    WorkloadNetworkPolicyProposalSpec spec = Fixtures.proposalSpec("api", "web");
    spec.setTargetRef(new TargetRef(WorkloadKind.Deployment, "api"));
    ProposalSnapshot s =
        new ProposalSnapshot(
            NAME,
            NS,
            spec,
            List.of(),
            since.plusSeconds(++published),
            new Convergence(
                true,
                since,
                "QuietPeriodPassed",
                "no new peer or port since " + since.minus(Duration.ofDays(7))));
    KafkaTopics.produce(broker.bootstrapServers(), TOPICS.proposals(), s.target().key(), s);
    int offset = published;
    await()
        .atMost(WAIT)
        .until(
            () ->
                KafkaTopics.committed(
                        broker.bootstrapServers(),
                        PREFIX + "writer-proposals",
                        TOPICS.proposals().name())
                    >= offset);
  }

  private static void loss(DataPlaneLoss loss) throws Exception {
    KafkaTopics.produce(broker.bootstrapServers(), TOPICS.dataPlaneLoss(), loss.key(), loss);
  }

  /** Read as a person does: the writer's own grants hold no get on proposals (informers only). */
  private static WorkloadNetworkPolicyProposal proposal() {
    return cluster
        .admin()
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(NS)
        .withName(NAME)
        .get();
  }

  private static List<LostEvents> lostEvents() {
    WorkloadNetworkPolicyProposal p = proposal();
    return p == null || p.getStatus() == null || p.getStatus().getLostEvents() == null
        ? List.of()
        : p.getStatus().getLostEvents();
  }

  private static Optional<Condition> converged() {
    return condition("Converged");
  }

  private static Optional<Condition> condition(String type) {
    WorkloadNetworkPolicyProposal p = proposal();
    if (p == null || p.getStatus() == null || p.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return p.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }
}
