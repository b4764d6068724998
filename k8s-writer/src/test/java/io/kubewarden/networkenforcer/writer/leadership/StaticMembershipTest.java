package io.kubewarden.networkenforcer.writer.leadership;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.KafkaTopics;
import io.kubewarden.networkenforcer.writer.MockCluster;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
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
 * The writer's consumers as static members (the chart gives each replica its pod name): a leader
 * restarted in its pod takes its dead members' places at once, and a leader that stops leaves its
 * groups so that another replica does not wait out its session (45 s).
 */
class StaticMembershipTest {
  static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void startKafka() {
    broker = EmbeddedKafkaBroker.startDefault();
  }

  @AfterAll
  static void stopKafka() {
    broker.close();
  }

  static WriterService writer(KubernetesClient client, String prefix, String group, String pod) {
    WriterConfig config =
        WriterConfig.builder()
            .namespace("network-enforcer")
            .identity(pod)
            .groupInstanceId(pod)
            .leaseDuration(Duration.ofSeconds(3))
            .renewDeadline(Duration.ofSeconds(2))
            .retryPeriod(Duration.ofMillis(300))
            .statusUpdateInterval(Duration.ofMillis(300))
            .consumerGroup(group)
            .kafka(new KafkaSettings(broker.bootstrapServers(), prefix, 1, (short) 1, Map.of()))
            .build()
            .validate();
    return new WriterService(
        client,
        config,
        new MockClusterWriter(client),
        TelemetryExport.create(TelemetrySettings.disabled(), "network-enforcer"),
        new SimpleMeterRegistry(),
        Clock.systemUTC());
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
      WriterService restarted = writer(client, "restarted.", "restarted-writer", "writer-0");
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
            .until(() -> LeaderFailoverTest.status(cluster).getViolationCount() == 1);
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
      WriterService leader = writer(client, "leaving.", "leaving-writer", "writer-a");
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
}
