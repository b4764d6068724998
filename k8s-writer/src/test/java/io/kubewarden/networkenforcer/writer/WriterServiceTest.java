package io.kubewarden.networkenforcer.writer;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.telemetry.CollectorStrategy;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One writer against the mock API server and a real Kafka: proposals in, promotion, the cluster
 * view out, violations into the status with their events, acknowledgements, faults.
 */
class WriterServiceTest {
  static EmbeddedKafkaBroker broker;
  static final Duration WAIT = Duration.ofSeconds(30);

  @BeforeAll
  static void startKafka() {
    broker = EmbeddedKafkaBroker.startDefault();
  }

  @AfterAll
  static void stopKafka() {
    broker.close();
  }

  static WriterConfig config(String prefix, String identity) {
    return Fixtures.quickWriter(broker.bootstrapServers(), prefix, 1)
        .identity(identity)
        .build()
        .validate();
  }

  @Test
  void learnsPromotesPublishesAndRecordsViolations() throws Exception {
    String prefix = "e2e.";
    Topics topics = new Topics(prefix);
    KafkaTopics.create(broker.bootstrapServers(), topics, 1);
    String bootstrap = broker.bootstrapServers();
    // A policy the topic still knows but the cluster no longer has: the resync must tombstone it.
    String staleKey = NS + "/Deployment/gone/Ingress";
    PolicySnapshot stale =
        PolicySnapshot.class.cast(
            Json.mapper()
                .convertValue(
                    Map.of(
                        "name",
                        "deployment-gone-ingress",
                        "namespace",
                        NS,
                        "spec",
                        Json.mapper()
                            .convertValue(
                                Fixtures.wnp("gone", "web", Mode.monitor).getSpec(), Map.class),
                        "generation",
                        1),
                    PolicySnapshot.class));
    KafkaTopics.produce(bootstrap, topics.policies(), staleKey, stale);

    InMemoryLogRecordExporter otel = InMemoryLogRecordExporter.create();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (MockCluster cluster = MockCluster.start();
        WriterService writer =
            new WriterService(
                cluster.client(),
                config(prefix, "writer-a"),
                new MockClusterWriter(cluster.client()),
                TelemetryExport.withExporter(otel, "memory", CollectorStrategy.external),
                meters,
                Clock.systemUTC())) {
      KubernetesClient k8s = cluster.client();
      k8s.resource(Fixtures.deployment("api")).create();
      k8s.resource(Fixtures.deployment("db")).create();
      writer.start();
      await().atMost(WAIT).until(writer::isLeader);

      // The resync removed the stale policy from the processor's view.
      await()
          .atMost(WAIT)
          .until(
              () ->
                  latest(bootstrap, topics.policies().name(), staleKey) == null
                      && KafkaTopics.readAll(bootstrap, topics.policies().name()).size() >= 2);

      // Learn: a proposal snapshot becomes a WNPP.
      ProposalSnapshot snapshot = Fixtures.proposal("api", "web");
      KafkaTopics.produce(bootstrap, topics.proposals(), snapshot.target().key(), snapshot);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  proposal(k8s, "deployment-api-ingress") != null
                      && proposal(k8s, "deployment-api-ingress").getStatus() != null
                      && proposal(k8s, "deployment-api-ingress").getStatus().getConditions()
                          != null);
      var learned = proposal(k8s, "deployment-api-ingress");
      assertThat(learned.getStatus().getConditions())
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.getType()).isEqualTo("Ready");
                assertThat(c.getStatus()).isEqualTo("True");
                assertThat(c.getObservedGeneration())
                    .isEqualTo(learned.getMetadata().getGeneration());
              });

      // Promote: the label makes a WNP, the proposal goes, the processor hears of the policy.
      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .until(
              () ->
                  k8s.resources(WorkloadNetworkPolicyProposal.class)
                          .inNamespace(NS)
                          .withName("deployment-api-ingress")
                          .edit(
                              p -> {
                                p.getMetadata().getLabels().put(Labels.PROMOTE, "protect");
                                return p;
                              })
                      != null);
      await()
          .atMost(WAIT)
          .until(() -> policy(k8s) != null && proposal(k8s, "deployment-api-ingress") == null);
      assertThat(policy(k8s).getSpec().getMode()).isEqualTo(Mode.protect);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  k8s.network()
                          .v1()
                          .networkPolicies()
                          .inNamespace(NS)
                          .withName("deployment-api-ingress")
                          .get()
                      != null);
      await()
          .atMost(WAIT)
          .until(
              () -> latest(bootstrap, topics.policies().name(), snapshot.target().key()) != null);
      PolicySnapshot published =
          Json.mapper()
              .readValue(
                  latest(bootstrap, topics.policies().name(), snapshot.target().key()),
                  PolicySnapshot.class);
      assertThat(published.name()).isEqualTo("deployment-api-ingress");
      assertThat(published.mode()).isEqualTo(Mode.protect);
      assertThat(published.promotedFrom()).isEqualTo("deployment-api-ingress");

      // Violations: events at once, status within an interval, offsets committed after the write.
      Instant t = Instant.parse("2026-03-01T10:00:00Z");
      String policyKey = NS + "/deployment-api-ingress";
      KafkaTopics.produce(
          bootstrap, topics.violations(), policyKey, Fixtures.violation("api", "web", 9090, t));
      KafkaTopics.produce(
          bootstrap,
          topics.violations(),
          policyKey,
          Fixtures.violation("api", "web", 9090, t.plusSeconds(5)));
      KafkaTopics.produce(
          bootstrap,
          topics.violations(),
          policyKey,
          Fixtures.violation("api", "batch", 9090, t.plusSeconds(6)));
      await()
          .atMost(WAIT)
          .until(
              () ->
                  policy(k8s).getStatus() != null
                      && policy(k8s).getStatus().getViolationCount() == 3);
      var status = policy(k8s).getStatus();
      assertThat(status.getViolations()).extracting(v -> v.getId()).containsExactly(2L, 0L);
      assertThat(status.getActiveViolationCount()).isEqualTo(2);
      assertThat(status.getObservedGeneration())
          .isEqualTo(policy(k8s).getMetadata().getGeneration());
      assertThat(status.getConditions())
          .anySatisfy(
              c -> {
                assertThat(c.getType()).isEqualTo("Rendered");
                assertThat(c.getStatus()).isEqualTo("True");
              });
      assertThat(status.getConditions())
          .anySatisfy(
              c -> {
                assertThat(c.getType()).isEqualTo("Ready");
                assertThat(c.getStatus()).isEqualTo("True");
                assertThat(c.getObservedGeneration())
                    .isEqualTo(policy(k8s).getMetadata().getGeneration());
              });
      // The SDK batches exports (up to a second): poll for the events.
      await().atMost(WAIT).until(() -> events(otel, "policy_violation_observed").size() == 3);
      assertThat(events(otel, "policy_violation_observed"))
          .extracting(r -> r.getAttributes().get(AttributeKey.stringKey("log.record.uid")))
          .doesNotHaveDuplicates();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  KafkaTopics.committed(
                          bootstrap, prefix + "writer-violations", topics.violations().name())
                      == 3);

      // Acknowledge record 0: it moves with its reason, the annotation goes, then the event.
      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .until(
              () ->
                  k8s.resources(WorkloadNetworkPolicy.class)
                          .inNamespace(NS)
                          .withName("deployment-api-ingress")
                          .edit(
                              p -> {
                                p.getMetadata()
                                    .setAnnotations(
                                        Map.of(
                                            Labels.ACKNOWLEDGE_PREFIX + "0",
                                            "known batch traffic",
                                            Labels.ACKNOWLEDGE_PREFIX + "99",
                                            "no such record"));
                                return p;
                              })
                      != null);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  !policy(k8s)
                      .getMetadata()
                      .getAnnotations()
                      .containsKey(Labels.ACKNOWLEDGE_PREFIX + "0"));
      var acked = policy(k8s).getStatus();
      assertThat(acked.getAcknowledgedViolations())
          .singleElement()
          .satisfies(
              a -> {
                assertThat(a.getViolation().getId()).isZero();
                assertThat(a.getReason()).isEqualTo("known batch traffic");
              });
      assertThat(acked.getViolations()).extracting(v -> v.getId()).containsExactly(2L);
      assertThat(policy(k8s).getMetadata().getAnnotations())
          .containsKey(Labels.ACKNOWLEDGE_PREFIX + "99");
      await().atMost(WAIT).until(() -> events(otel, "policy_violation_acknowledged").size() == 1);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  policy(k8s).getStatus().getConditions().stream()
                      .anyMatch(c -> c.getType().equals("UnmatchedAcknowledgements")));

      // A proposal deleted by hand resets learning; one we delete ourselves does not.
      ProposalSnapshot dbSnapshot = Fixtures.proposal("db", "api");
      KafkaTopics.produce(bootstrap, topics.proposals(), dbSnapshot.target().key(), dbSnapshot);
      await().atMost(WAIT).until(() -> proposal(k8s, "deployment-db-ingress") != null);
      k8s.resources(WorkloadNetworkPolicyProposal.class)
          .inNamespace(NS)
          .withName("deployment-db-ingress")
          .delete();
      await()
          .atMost(WAIT)
          .until(
              () -> latest(bootstrap, topics.control().name(), dbSnapshot.target().key()) != null);
      ControlCommand reset =
          Json.mapper()
              .readValue(
                  latest(bootstrap, topics.control().name(), dbSnapshot.target().key()),
                  ControlCommand.class);
      assertThat(reset.type()).isEqualTo(ControlCommand.Type.RESET_LEARNING);
      assertThat(KafkaTopics.readAll(bootstrap, topics.control().name()))
          .as("the promotion's delete is ours")
          .hasSize(1);

      // Faults: a violation of a policy that does not exist is counted and dropped; garbage goes to
      // dead-letter.
      KafkaTopics.produce(
          bootstrap,
          topics.violations(),
          NS + "/deployment-nope-ingress",
          Fixtures.violation("nope", "web", 80, t));
      KafkaTopics.produceRaw(
          bootstrap,
          topics.violations().name(),
          policyKey,
          "{not json".getBytes(StandardCharsets.UTF_8));
      await()
          .atMost(WAIT)
          .until(
              () ->
                  KafkaTopics.committed(
                          bootstrap, prefix + "writer-violations", topics.violations().name())
                      == 5);
      assertThat(
              meters
                  .counter("network.enforcer.writer.violations.dropped", "reason", "policy_missing")
                  .count())
          .isEqualTo(1);
      List<ConsumerRecord<String, byte[]>> dead =
          KafkaTopics.readAll(bootstrap, topics.deadLetter().name());
      assertThat(dead)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("{not json");
                assertThat(DeadLetterHeaders.get(r.headers(), DeadLetterHeaders.REASON))
                    .contains("ViolationObservation");
              });

      // Deleting the policy tombstones its target on the policies topic.
      k8s.resources(WorkloadNetworkPolicy.class)
          .inNamespace(NS)
          .withName("deployment-api-ingress")
          .delete();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                var records =
                    KafkaTopics.readAll(bootstrap, topics.policies().name()).stream()
                        .filter(r -> r.key().equals(snapshot.target().key()))
                        .toList();
                return !records.isEmpty() && records.get(records.size() - 1).value() == null;
              });
    }
  }

  static List<LogRecordData> events(InMemoryLogRecordExporter otel, String name) {
    return otel.getFinishedLogRecordItems().stream()
        .filter(r -> name.equals(r.getEventName()))
        .toList();
  }

  static WorkloadNetworkPolicy policy(KubernetesClient k8s) {
    return k8s.resources(WorkloadNetworkPolicy.class)
        .inNamespace(NS)
        .withName("deployment-api-ingress")
        .get();
  }

  static WorkloadNetworkPolicyProposal proposal(KubernetesClient k8s, String name) {
    return k8s.resources(WorkloadNetworkPolicyProposal.class).inNamespace(NS).withName(name).get();
  }

  /** The latest value of a key on a topic (null when absent or a tombstone). */
  static byte[] latest(String bootstrap, String topic, String key) {
    byte[] v = null;
    for (ConsumerRecord<String, byte[]> r : KafkaTopics.readAll(bootstrap, topic)) {
      if (key.equals(r.key())) {
        v = r.value();
      }
    }
    return v;
  }
}
