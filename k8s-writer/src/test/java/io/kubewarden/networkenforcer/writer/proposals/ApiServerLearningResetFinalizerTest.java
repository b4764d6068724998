package io.kubewarden.networkenforcer.writer.proposals;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartTemplates;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackProxy;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.KafkaTopics;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.status.StatusSyncTest;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A person's delete of a proposal outlives the leader that saw it ({@link LearningResetFinalizer}),
 * and the chart's uninstall hook frees every proposal once no writer runs ({@link
 * FinalizerRelease}), on a real kube-apiserver with the chart's CRDs, admission policies and RBAC.
 */
class ApiServerLearningResetFinalizerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PREFIX = "finalizer.";
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final Topics TOPICS = new Topics(PREFIX);

  private static EmbeddedKafkaBroker broker;
  private static ChartedApiServer cluster;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster = ChartedApiServer.start(NS);
    KafkaTopics.create(broker.bootstrapServers(), TOPICS, 1);
    for (String name : List.of("omega", "blocker")) {
      cluster.admin().resource(Fixtures.deployment(name)).create();
    }
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  /**
   * The leader sees the delete event but dies before it reconciles the key (its only proposal
   * worker is stuck, then its API server connection is cut: no graceful step-down, no Lease
   * release). The next leader finds the proposal still there, deleted, sends exactly one reset and
   * lets it go.
   */
  @Test
  void aPersonsDeleteSeenByALeaderThatDiesIsResetByTheNext() throws Exception {
    List<AutoCloseable> toClose = new ArrayList<>();
    CountDownLatch unstick = new CountDownLatch(1);
    CountDownLatch stuck = new CountDownLatch(1);
    try {
      Writer a = new Writer("writer-a", toClose, real -> stuckOnBlocker(real, stuck, unstick));
      a.service.start();
      await("a leads").atMost(WAIT).until(a.service::isLeader);
      Writer b = new Writer("writer-b", toClose, real -> real);
      b.service.start();

      produce("omega");
      await("omega applied, with the finalizer")
          .atMost(WAIT)
          .until(() -> proposal("omega") != null && LearningResetFinalizer.held(proposal("omega")));

      // Omega's record committed: the next leader does not apply it again after the delete.
      await("omega's record committed")
          .atMost(WAIT)
          .until(
              () ->
                  KafkaTopics.committed(
                          broker.bootstrapServers(),
                          PREFIX + "writer-proposals",
                          TOPICS.proposals().name())
                      >= 1);
      produce("blocker");
      assertThat(stuck.await(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("a's proposal worker is stuck")
          .isTrue();
      cluster.admin().resource(proposal("omega")).delete();
      await("a saw the delete event")
          .atMost(WAIT)
          .until(
              () ->
                  a.service
                      .cache()
                      .flatMap(c -> c.proposal(NS, "deployment-omega-ingress"))
                      .filter(LearningResetFinalizer::deleting)
                      .isPresent());
      assertThat(proposal("omega")).as("the finalizer holds the deleted proposal").isNotNull();

      a.proxy.cut(); // killed: nothing more reaches the API server, the Lease is not released
      await("b leads").atMost(WAIT).until(b.service::isLeader);
      await("b lets the deleted proposal go").atMost(WAIT).until(() -> proposal("omega") == null);
      String omega = Fixtures.proposal("omega", "web").target().key();
      String blocker = Fixtures.proposal("blocker", "web").target().key();
      assertThat(KafkaTopics.readAll(broker.bootstrapServers(), TOPICS.control().name()))
          .as("one reset, for the proposal the person deleted")
          .extracting(r -> r.key())
          .filteredOn(k -> k.equals(omega) || k.equals(blocker))
          .containsExactly(omega);
      await("b applies what a was stuck on").atMost(WAIT).until(() -> proposal("blocker") != null);
    } finally {
      unstick.countDown();
      for (int i = toClose.size() - 1; i >= 0; i--) {
        toClose.get(i).close();
      }
    }
  }

  /**
   * The garbage collector deletes the proposal of a deleted workload: the finalizer holds it until
   * the writer has sent one reset, so the processor drops what it learned of the gone target.
   */
  @Test
  void aWorkloadsDeleteTakesItsProposalAlongAndResetsItsLearningOnce() throws Exception {
    cluster.api().startControllerManager();
    cluster.admin().resource(Fixtures.deployment("gone")).create();
    List<AutoCloseable> toClose = new ArrayList<>();
    try {
      Writer w = new Writer("writer-gc", toClose, real -> real);
      w.service.start();
      await("w leads").atMost(WAIT).until(w.service::isLeader);
      produce("gone");
      await("gone applied, with the finalizer")
          .atMost(WAIT)
          .until(() -> proposal("gone") != null && LearningResetFinalizer.held(proposal("gone")));

      Instant deleted = Instant.now();
      cluster.admin().apps().deployments().inNamespace(NS).withName("gone").delete();
      await("the garbage collector's delete finished")
          .atMost(WAIT)
          .until(() -> proposal("gone") == null);
      String gone = Fixtures.proposal("gone", "web").target().key();
      List<ControlCommand> resets =
          KafkaTopics.readAll(broker.bootstrapServers(), TOPICS.control().name()).stream()
              .filter(r -> gone.equals(r.key()))
              .map(
                  r ->
                      TOPICS
                          .control()
                          .valueSerde()
                          .deserializer()
                          .deserialize(TOPICS.control().name(), r.value()))
              .toList();
      assertThat(resets)
          .as("one reset for the proposal its workload took along")
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.type()).isEqualTo(ControlCommand.Type.RESET_LEARNING);
                assertThat(c.reason())
                    .isEqualTo(
                        "the workload of proposal " + NS + "/deployment-gone-ingress was deleted");
                // Dated ahead: flows of its terminating pods do not learn it again.
                assertThat(c.at())
                    .isAfterOrEqualTo(deleted.plus(WhoDeleted.TERMINATING_PODS))
                    .isBefore(Instant.now().plus(WhoDeleted.TERMINATING_PODS));
              });
    } finally {
      for (int i = toClose.size() - 1; i >= 0; i--) {
        toClose.get(i).close();
      }
    }
  }

  /**
   * After {@code helm uninstall} no writer runs: the chart's post-delete hook, under exactly its
   * own RBAC, removes the finalizer from every proposal, so a deleted one goes and the others can
   * go; another finalizer stays.
   */
  @Test
  void theUninstallHookLetsEveryProposalGo() {
    List<HasMetadata> hook =
        ChartTemplates.objects(
            cluster.admin(),
            ChartTemplates.renderRelease(
                RELEASE,
                "--set",
                "mode=distributed",
                "--set",
                "kafka.bootstrapServers=kafka:9092",
                "--show-only",
                "templates/uninstall-hook.yaml"));
    Job job = (Job) hook.stream().filter(Job.class::isInstance).findFirst().orElseThrow();
    assertThat(job.getMetadata().getAnnotations()).containsEntry("helm.sh/hook", "post-delete");
    PodSpec pod = job.getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers().get(0).getArgs()).containsExactly("release-finalizers");
    String account = pod.getServiceAccountName();
    hook.stream()
        .filter(o -> !(o instanceof Job))
        .forEach(o -> cluster.admin().resource(o).create());

    WorkloadNetworkPolicyProposal deleted = held("hook-deleted", List.of());
    WorkloadNetworkPolicyProposal kept = held("hook-kept", List.of("example.com/backup"));
    cluster.admin().resource(deleted).delete();
    assertThat(byName("hook-deleted")).as("held by the finalizer").isNotNull();

    // The API server is shared by the class: earlier tests' proposals may hold the finalizer too.
    List<String> holding =
        cluster
            .admin()
            .resources(WorkloadNetworkPolicyProposal.class)
            .inAnyNamespace()
            .list()
            .getItems()
            .stream()
            .filter(LearningResetFinalizer::held)
            .map(p -> p.getMetadata().getName())
            .toList();
    assertThat(holding).contains("hook-deleted", "hook-kept");
    try (KubernetesClient asHook =
        cluster.api().serviceAccountClient(ChartedApiServer.RELEASE_NAMESPACE, account)) {
      assertThat(FinalizerRelease.releaseAll(asHook)).isEqualTo(holding.size());
    }
    await("the deleted proposal goes").atMost(WAIT).until(() -> byName("hook-deleted") == null);
    assertThat(byName("hook-kept").getMetadata().getFinalizers())
        .containsExactly("example.com/backup");
    assertThat(
            cluster
                .admin()
                .resources(WorkloadNetworkPolicyProposal.class)
                .inAnyNamespace()
                .list()
                .getItems())
        .as("no proposal left with the writer's finalizer")
        .noneMatch(LearningResetFinalizer::held);
  }

  /** A proposal holding the writer's finalizer (and these), created as an older writer left it. */
  private static WorkloadNetworkPolicyProposal held(String name, List<String> others) {
    WorkloadNetworkPolicyProposal p = new WorkloadNetworkPolicyProposal();
    List<String> finalizers = new ArrayList<>(others);
    finalizers.add(LearningResetFinalizer.NAME);
    p.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(NS)
            .withFinalizers(finalizers)
            .build());
    p.setSpec(Fixtures.proposalSpec("omega", "web"));
    return cluster.admin().resource(p).create();
  }

  private static WorkloadNetworkPolicyProposal byName(String name) {
    return cluster
        .admin()
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(NS)
        .withName(name)
        .get();
  }

  /** The real writer, except that applying the blocker's proposal hangs until released. */
  private static ClusterWriter stuckOnBlocker(
      ClusterWriter real, CountDownLatch stuck, CountDownLatch unstick) {
    return new StatusSyncTest.Delegating(real) {
      @Override
      public <T extends HasMetadata> T apply(T o) {
        if ("deployment-blocker-ingress".equals(o.getMetadata().getName())) {
          stuck.countDown();
          try {
            unstick.await(2, TimeUnit.MINUTES);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new IllegalStateException("killed");
        }
        return d.apply(o);
      }
    };
  }

  private static void produce(String workload) throws Exception {
    ProposalSnapshot snapshot = Fixtures.proposal(workload, "web");
    KafkaTopics.produce(
        broker.bootstrapServers(), TOPICS.proposals(), snapshot.target().key(), snapshot);
  }

  private static WorkloadNetworkPolicyProposal proposal(String workload) {
    return cluster
        .admin()
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(NS)
        .withName("deployment-" + workload + "-ingress")
        .get();
  }

  /** A writer replica: its own client (as the writer service account) through a proxy. */
  private static final class Writer {
    final LoopbackProxy proxy;
    final WriterService service;

    Writer(String identity, List<AutoCloseable> toClose, UnaryOperator<ClusterWriter> wrap) {
      this.proxy = LoopbackProxy.to(cluster.api().url());
      KubernetesClient client = cluster.writerClientVia(proxy, RELEASE, config -> config);
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
              .kafka(new KafkaSettings(broker.bootstrapServers(), PREFIX, 1, (short) 1, Map.of()))
              .build()
              .validate();
      this.service =
          new WriterService(
              client,
              config,
              wrap.apply(new ServerSideApplyWriter(client, config.fieldManager())),
              TelemetryExport.create(TelemetrySettings.disabled(), config.namespace()),
              new SimpleMeterRegistry(),
              Clock.systemUTC());
      toClose.add(proxy);
      toClose.add(client);
      toClose.add(service);
    }
  }
}
