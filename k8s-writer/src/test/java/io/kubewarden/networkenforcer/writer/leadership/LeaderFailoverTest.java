package io.kubewarden.networkenforcer.writer.leadership;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.KafkaTopics;
import io.kubewarden.networkenforcer.writer.MockCluster;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.kubewarden.networkenforcer.writer.status.StatusSyncTest;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two writers, one lease. The leader is killed while it holds read but unwritten violations; the
 * other takes over and every violation, before and after, ends up in the status exactly once, also
 * when the leader died between its status write and its offset commit. With static members (the
 * chart gives each replica its pod name), a leader restarted in its pod takes its dead members'
 * places at once, and a leader that stops leaves its groups so that another replica does not wait
 * out its session (45 s).
 */
class LeaderFailoverTest {
  static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void startKafka() {
    broker = EmbeddedKafkaBroker.startDefault();
  }

  @AfterAll
  static void stopKafka() {
    broker.close();
  }

  WriterConfig config(String identity) {
    return config(identity, "failover.", "failover-writer");
  }

  WriterConfig config(String identity, String prefix, String group) {
    return Fixtures.quickWriter(broker.bootstrapServers(), prefix, 1)
        .identity(identity)
        // Long enough that the leader dies holding observations it has not written yet.
        .statusUpdateInterval(Duration.ofSeconds(8))
        .consumerGroup(group)
        .build()
        .validate();
  }

  WriterService writer(KubernetesClient client, String identity, SimpleMeterRegistry meters) {
    return writer(client, config(identity), meters);
  }

  static WriterService writer(
      KubernetesClient client, WriterConfig config, SimpleMeterRegistry meters) {
    return new WriterService(
        client,
        config,
        new MockClusterWriter(client),
        TelemetryExport.create(TelemetrySettings.disabled(), "network-enforcer"),
        meters,
        Clock.systemUTC());
  }

  /**
   * A writer whose consumers are static members named by its pod, as the chart runs it (the
   * consumers' groups {@code <group>-proposals} and {@code -violations}).
   */
  WriterService staticWriter(KubernetesClient client, String prefix, String group, String pod) {
    return writer(
        client,
        config(pod, prefix, group).toBuilder()
            .groupInstanceId(pod)
            .statusUpdateInterval(Duration.ofMillis(300))
            .build(),
        new SimpleMeterRegistry());
  }

  @Test
  void theSurvivorTakesOverAndNoViolationIsLost() throws Exception {
    String bootstrap = broker.bootstrapServers();
    Topics topics = new Topics("failover.");
    KafkaTopics.create(bootstrap, topics, 1);
    try (MockCluster cluster = MockCluster.start()) {
      cluster.client().resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
      KubernetesClient clientA = cluster.newClient();
      KubernetesClient clientB = cluster.newClient();
      SimpleMeterRegistry metersA = new SimpleMeterRegistry();
      WriterService a = writer(clientA, "writer-a", metersA);
      WriterService b = writer(clientB, "writer-b", new SimpleMeterRegistry());
      try {
        a.start();
        await().atMost(Duration.ofSeconds(30)).until(a::isLeader);
        b.start();

        Instant t = Instant.parse("2026-03-01T10:00:00Z");
        String key = NS + "/deployment-api-ingress";
        for (int i = 0; i < 20; i++) {
          KafkaTopics.produce(
              bootstrap,
              topics.violations(),
              key,
              Fixtures.violation("api", "w" + i, 8080, t.plusSeconds(i)));
        }
        // The leader has read all twenty and, with an 8 s interval, written none of them yet.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> metersA.counter("network.enforcer.writer.violations.consumed").count() >= 20);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    metersA.get("network.enforcer.writer.violations.buffered").gauge().value()
                        == 20);
        double writtenBeforeKill =
            metersA.counter("network.enforcer.writer.violations.written").count();
        // Kill it: its API connection drops (no lease release, no more writes) and it stops
        // without committing what it read.
        clientA.close();
        a.close();
        assertThat(b.isLeader()).isFalse();
        assertThat(writtenBeforeKill).as("the leader died holding unwritten violations").isZero();

        await().atMost(Duration.ofSeconds(60)).until(b::isLeader);
        for (int i = 20; i < 40; i++) {
          KafkaTopics.produce(
              bootstrap,
              topics.violations(),
              key,
              Fixtures.violation("api", "w" + i, 8080, t.plusSeconds(i)));
        }

        Set<String> expected =
            IntStream.range(0, 40).mapToObj(i -> "w" + i).collect(Collectors.toSet());
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> sources(status(cluster)).containsAll(expected));
        WorkloadNetworkPolicyStatus status = status(cluster);
        assertThat(status.getViolationCount()).isEqualTo(40);
        assertThat(status.getViolations()).hasSize(40);
        assertThat(status.getActiveViolationCount()).isEqualTo(40);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    KafkaTopics.committed(
                            bootstrap, "failover-writer-violations", topics.violations().name())
                        == 40);
      } finally {
        b.close();
        a.close();
        clientB.close();
      }
    }
  }

  @Test
  void aLeaderThatDiesBetweenItsStatusWriteAndItsCommitDoublesNothing() throws Exception {
    String bootstrap = broker.bootstrapServers();
    Topics topics = new Topics("crash.");
    KafkaTopics.create(bootstrap, topics, 1);
    try (MockCluster cluster = MockCluster.start()) {
      cluster.client().resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
      KubernetesClient clientA = cluster.newClient();
      KubernetesClient clientB = cluster.newClient();
      // A's process "dies" the moment its first status write is in: the write stands, nothing after
      // it runs.
      CountDownLatch statusWritten = new CountDownLatch(1);
      ClusterWriter crashAfterStatusWrite =
          new StatusSyncTest.Delegating(new MockClusterWriter(clientA)) {
            @Override
            public <T extends HasMetadata> T updateStatus(T o) {
              if (statusWritten.getCount() == 0) {
                throw new NotLeaderException("update-status after the crash");
              }
              T written = d.updateStatus(o);
              if (((WorkloadNetworkPolicy) o).getStatus().getViolationCount() == 0) {
                return written; // the conditions of the first render, before any violation
              }
              statusWritten.countDown();
              throw new NotLeaderException("crashed right after the status write");
            }
          };
      SimpleMeterRegistry metersB = new SimpleMeterRegistry();
      WriterService a =
          new WriterService(
              clientA,
              config("writer-a", "crash.", "crash-writer"),
              crashAfterStatusWrite,
              TelemetryExport.create(TelemetrySettings.disabled(), "network-enforcer"),
              new SimpleMeterRegistry(),
              Clock.systemUTC());
      WriterService b =
          new WriterService(
              clientB,
              config("writer-b", "crash.", "crash-writer"),
              new MockClusterWriter(clientB),
              TelemetryExport.create(TelemetrySettings.disabled(), "network-enforcer"),
              metersB,
              Clock.systemUTC());
      try {
        a.start();
        await().atMost(Duration.ofSeconds(30)).until(a::isLeader);
        b.start();
        Instant t = Instant.parse("2026-03-01T10:00:00Z");
        String key = NS + "/deployment-api-ingress";
        for (int i = 0; i < 20; i++) {
          KafkaTopics.produce(
              bootstrap,
              topics.violations(),
              key,
              Fixtures.violation("api", "w" + i, 8080, t.plusSeconds(i)));
        }
        assertThat(statusWritten.await(60, TimeUnit.SECONDS)).isTrue();
        clientA.close();
        a.close();
        assertThat(status(cluster).getViolationCount()).as("A's write stands").isEqualTo(20);
        assertThat(
                KafkaTopics.committed(
                    bootstrap, "crash-writer-violations", topics.violations().name()))
            .as("A died before committing")
            .isLessThan(20);

        await().atMost(Duration.ofSeconds(60)).until(b::isLeader);
        for (int i = 20; i < 40; i++) {
          KafkaTopics.produce(
              bootstrap,
              topics.violations(),
              key,
              Fixtures.violation("api", "w" + i, 8080, t.plusSeconds(i)));
        }
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    KafkaTopics.committed(
                            bootstrap, "crash-writer-violations", topics.violations().name())
                        == 40);
        WorkloadNetworkPolicyStatus status = status(cluster);
        assertThat(status.getViolationCount())
            .as("40 observations, 40 counted: none doubled")
            .isEqualTo(40);
        assertThat(status.getViolations()).hasSize(40);
        assertThat(sources(status)).hasSize(40);
        assertThat(metersB.counter("network.enforcer.writer.violations.already.merged").count())
            .as("B read A's twenty again and skipped them")
            .isEqualTo(20);
        assertThat(metersB.counter("network.enforcer.writer.violations.consumed").count())
            .as("so it sent events for the twenty new ones only")
            .isEqualTo(20);
      } finally {
        b.close();
        a.close();
        clientB.close();
      }
    }
  }

  @Test
  void aLeaderThatLosesItsLeaseStopsAndCompetesAgain() throws Exception {
    String bootstrap = broker.bootstrapServers();
    Topics topics = new Topics("stolen.");
    KafkaTopics.create(bootstrap, topics, 1);
    try (MockCluster cluster = MockCluster.start()) {
      cluster.client().resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
      KubernetesClient client = cluster.newClient();
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      WriterService a =
          writer(
              client,
              config("writer-a", "stolen.", "stolen-writer").toBuilder()
                  .statusUpdateInterval(Duration.ofMillis(300))
                  .build(),
              meters);
      try {
        a.start();
        await().atMost(Duration.ofSeconds(30)).until(a::isLeader);
        // Someone else takes the lease (as after a long pause of this replica).
        // The leader renews concurrently, so an edit may meet a 409: try again until it lands.
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(
                () ->
                    cluster
                            .client()
                            .leases()
                            .inNamespace("network-enforcer")
                            .withName(WriterConfig.DEFAULT_LEASE_NAME)
                            .edit(
                                l -> {
                                  l.getSpec().setHolderIdentity("intruder");
                                  l.getSpec().setLeaseDurationSeconds(4);
                                  l.getSpec().setRenewTime(ZonedDateTime.now());
                                  return l;
                                })
                        != null);
        await().atMost(Duration.ofSeconds(30)).until(() -> !a.isLeader());
        assertThat(meters.get("network.enforcer.writer.leader").gauge().value()).isZero();

        KafkaTopics.produce(
            bootstrap,
            topics.violations(),
            NS + "/deployment-api-ingress",
            Fixtures.violation("api", "web", 9090, Instant.parse("2026-03-01T10:00:00Z")));
        // The intruder never renews: the lease expires and the replica, still a candidate, wins it
        // back.
        await().atMost(Duration.ofSeconds(60)).until(a::isLeader);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> status(cluster).getViolationCount() == 1);
      } finally {
        a.close();
        client.close();
      }
    }
  }

  @Test
  void aLeaderRestartedInItsPodTakesItsDeadMembersPlaceAtOnce() throws Exception {
    String bootstrap = broker.bootstrapServers();
    Topics topics = new Topics("restarted.");
    KafkaTopics.create(bootstrap, topics, 1);
    // The member the killed process left behind: it holds the partition and never polls again.
    // Its session has not ended (it still heartbeats), as in the seconds after a SIGKILL.
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "restarted-writer-violations");
    p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "writer-0-violations");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<String, byte[]> dead =
            new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        MockCluster cluster = MockCluster.start()) {
      dead.subscribe(List.of(topics.violations().name()));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                dead.poll(Duration.ofMillis(100));
                return !dead.assignment().isEmpty();
              });
      cluster.client().resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
      KubernetesClient client = cluster.newClient();
      WriterService restarted = staticWriter(client, "restarted.", "restarted-writer", "writer-0");
      try {
        restarted.start();
        await().atMost(Duration.ofSeconds(30)).until(restarted::isLeader);
        KafkaTopics.produce(
            bootstrap,
            topics.violations(),
            NS + "/deployment-api-ingress",
            Fixtures.violation("api", "web", 9090, Instant.parse("2026-03-01T10:00:00Z")));
        // A dynamic member would wait for the dead one to rejoin a rebalance (up to
        // max.poll.interval.ms, 5 min) or for its session to end; this one replaces it.
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> status(cluster).getViolationCount() == 1);
        // The loss consumer reads every partition by assignment, in no group.
        assertThat(instanceIds("restarted-writer"))
            .containsExactlyInAnyOrderEntriesOf(
                Map.of(
                    "restarted-writer-proposals", List.of("writer-0-proposals"),
                    "restarted-writer-violations", List.of("writer-0-violations")));
      } finally {
        restarted.close();
        client.close();
      }
    }
  }

  @Test
  void aLeaderThatStopsLeavesItsGroupsAtOnce() throws Exception {
    String bootstrap = broker.bootstrapServers();
    Topics topics = new Topics("leaving.");
    KafkaTopics.create(bootstrap, topics, 1);
    try (MockCluster cluster = MockCluster.start()) {
      KubernetesClient client = cluster.newClient();
      WriterService leader = staticWriter(client, "leaving.", "leaving-writer", "writer-a");
      try {
        leader.start();
        await().atMost(Duration.ofSeconds(30)).until(leader::isLeader);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    instanceIds("leaving-writer")
                        .equals(
                            Map.of(
                                "leaving-writer-proposals", List.of("writer-a-proposals"),
                                "leaving-writer-violations", List.of("writer-a-violations"))));
      } finally {
        leader.close();
        client.close();
      }
      // A static member that only closed would stay for its session (45 s) and hold its
      // partitions from the next leader.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> instanceIds("leaving-writer").values().stream().allMatch(List::isEmpty));
    }
  }

  /**
   * The group instance ids of each of the writer's groups (none: not created yet). The loss
   * consumer reads by assignment, in no group.
   */
  private static Map<String, List<String>> instanceIds(String prefix) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      Map<String, List<String>> ids = new TreeMap<>();
      for (var group :
          admin
              .describeConsumerGroups(List.of(prefix + "-proposals", prefix + "-violations"))
              .describedGroups()
              .entrySet()) {
        try {
          ids.put(
              group.getKey(),
              group.getValue().get().members().stream()
                  .map(MemberDescription::groupInstanceId)
                  .map(id -> id.orElse("dynamic"))
                  .sorted()
                  .toList());
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof GroupIdNotFoundException)) {
            throw e;
          }
          ids.put(group.getKey(), List.of());
        }
      }
      return ids;
    }
  }

  static WorkloadNetworkPolicyStatus status(MockCluster cluster) {
    WorkloadNetworkPolicy wnp =
        cluster
            .client()
            .resources(WorkloadNetworkPolicy.class)
            .inNamespace(NS)
            .withName("deployment-api-ingress")
            .get();
    return wnp.getStatus() == null ? new WorkloadNetworkPolicyStatus() : wnp.getStatus();
  }

  static Set<String> sources(WorkloadNetworkPolicyStatus s) {
    return s.getViolations().stream()
        .map(ViolationRecord::getSource)
        .map(e -> e.getOwnerName())
        .collect(Collectors.toSet());
  }
}
