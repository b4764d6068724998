package io.kubewarden.networkenforcer.writer.leadership;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackProxy;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.KafkaTopics;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader hand-over between writers on a real kube-apiserver, through the chart's Lease and RBAC: a
 * leader that stops releases the Lease and the next writer takes over at once; a leader cut off
 * from the API server (no release) steps down and is replaced once the Lease expires; never two
 * leaders, and what arrives while nobody leads is written by the next leader.
 */
class ApiServerLeaderHandOverTest {

  private static final Logger LOG = LoggerFactory.getLogger(ApiServerLeaderHandOverTest.class);

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PREFIX = "handover.";
  private static final String RELEASE = ChartedApiServer.KUBERNETES;

  private static EmbeddedKafkaBroker broker;
  private static ChartedApiServer cluster;
  private static final Topics TOPICS = new Topics(PREFIX);

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster = ChartedApiServer.start(NS);
    KafkaTopics.create(broker.bootstrapServers(), TOPICS, 1);
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

  @Test
  void leadershipMovesOnStopAndOnDeathAndOnlyTheLeaderWrites() throws Exception {
    for (String name : List.of("alpha", "beta", "gamma", "delta")) {
      cluster.admin().resource(Fixtures.deployment(name)).create();
    }
    List<AutoCloseable> toClose = new ArrayList<>();
    try {
      Writer a = new Writer("writer-a", toClose);
      a.service.start();
      await("a leads").atMost(WAIT).until(a.service::isLeader);
      Writer b = new Writer("writer-b", toClose);
      Writer c = new Writer("writer-c", toClose);
      b.service.start();
      c.service.start();
      assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("writer-a");
      produceProposal("alpha");
      await("leader writes").atMost(WAIT).until(() -> proposal("alpha") != null);
      assertThat(b.service.isLeader() || c.service.isLeader()).as("one leader at a time").isFalse();
      int transitions = transitions();

      // Graceful: a stops and releases the Lease; a follower takes over well before it would
      // expire.
      Instant stopped = Instant.now();
      a.service.close();
      Writer next =
          await("a follower leads").atMost(WAIT).until(() -> leaderOf(b, c), w -> w != null);
      assertThat(Duration.between(stopped, Instant.now())).isLessThan(Duration.ofSeconds(3));
      assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(next.identity);
      assertThat(transitions()).isGreaterThan(transitions);
      assertThat(a.service.isLeader()).isFalse();
      produceProposal("beta");
      await("new leader writes").atMost(WAIT).until(() -> proposal("beta") != null);

      // Partition: the leader loses the API server, nothing is released. It must step down by
      // itself (renew deadline); the last writer takes over once the Lease expires and writes
      // what arrived in between. Never two leaders.
      Writer last = next == b ? c : b;
      next.proxy.cut();
      produceProposal("gamma");
      await("the partitioned leader steps down")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(100))
          .conditionEvaluationListener(
              condition -> {
                if (!condition.isSatisfied() && condition.getElapsedTimeInMS() > 10_000) {
                  Lease lease = lease();
                  LOG.warn(
                      "{} still leads {} ms after its partition; Lease holder {} renewed {}",
                      next.identity,
                      condition.getElapsedTimeInMS(),
                      lease.getSpec().getHolderIdentity(),
                      lease.getSpec().getRenewTime());
                }
              })
          .until(() -> leaderOf(b, c) != next);
      await("the last writer leads")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> leaderOf(b, c) == last);
      assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(last.identity);
      await("what arrived leaderless is written")
          .atMost(WAIT)
          .until(() -> proposal("gamma") != null);
      next.service.close();
      produceProposal("delta");
      await("survivor keeps writing").atMost(WAIT).until(() -> proposal("delta") != null);
      assertThat(proposal("delta").getMetadata().getManagedFields())
          .anySatisfy(
              f -> assertThat(f.getManager()).isEqualTo(WriterConfig.DEFAULT_FIELD_MANAGER));
    } finally {
      for (int i = toClose.size() - 1; i >= 0; i--) {
        toClose.get(i).close();
      }
    }
  }

  /** A writer replica: its own client (as the writer service account) and service. */
  private static final class Writer {
    final String identity;
    final LoopbackProxy proxy;
    final KubernetesClient client;
    final WriterService service;

    Writer(String identity, List<AutoCloseable> toClose) {
      this.identity = identity;
      this.proxy = LoopbackProxy.to(cluster.api().url());
      this.client = cluster.writerClientVia(proxy, RELEASE, config -> config);
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
              new ServerSideApplyWriter(client, config.fieldManager()),
              TelemetryExport.create(TelemetrySettings.disabled(), config.namespace()),
              new SimpleMeterRegistry(),
              Clock.systemUTC());
      toClose.add(proxy);
      toClose.add(client);
      toClose.add(service);
    }
  }

  // The writers use a default client, as in production: LeaderElection gives the Lease its own
  // fail-fast client, so a partitioned leader notices within the renew deadline.

  private static Writer leaderOf(Writer... writers) {
    Writer leader = null;
    for (Writer w : writers) {
      if (w.service.isLeader()) {
        assertThat(leader).as("two leaders at once").isNull();
        leader = w;
      }
    }
    return leader;
  }

  private static void produceProposal(String workload) throws Exception {
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

  private static Lease lease() {
    return cluster
        .admin()
        .resources(Lease.class)
        .inNamespace(ChartedApiServer.RELEASE_NAMESPACE)
        .withName(ChartedApiServer.leaseName(RELEASE))
        .get();
  }

  private static int transitions() {
    Integer t = lease().getSpec().getLeaseTransitions();
    return t == null ? 0 : t;
  }
}
