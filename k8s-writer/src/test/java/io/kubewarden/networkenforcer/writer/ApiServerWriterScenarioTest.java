package io.kubewarden.networkenforcer.writer;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.policy.PolicySnapshot;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.telemetry.CollectorStrategy;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
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
 * The writer's whole lifecycle of a policy against a real kube-apiserver, with server-side apply,
 * the chart's RBAC (the writer authenticates as its service account) and admission policies, for
 * the Kubernetes and the Istio backends: learned proposal with its exact spec and ownerReference,
 * promotion to monitor, a violation in the status (id 0, counts) with its event, acknowledgement,
 * protect (native object with its ownerReference, no dry-run), back to monitor, deletion.
 */
class ApiServerWriterScenarioTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final ResourceDefinitionContext AUTHORIZATION_POLICY = new ResourceDefinitionContext.Builder()
      .withGroup("security.istio.io").withVersion("v1").withKind("AuthorizationPolicy")
      .withPlural("authorizationpolicies").withNamespaced(true).build();

  private static EmbeddedKafkaBroker broker;
  private static ChartedApiServer cluster;

  @BeforeAll
  static void start() {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster = ChartedApiServer.start(NS);
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
  void kubernetesBackendLifecycle() throws Exception {
    Deployment api = cluster.admin().resource(Fixtures.deployment("api")).create();
    ProposalSnapshot learned = Fixtures.proposal("api", "web");

    try (Scenario s = new Scenario("k8s.", ChartedApiServer.KUBERNETES)) {
      WorkloadNetworkPolicy policy = s.learnAndPromote(learned, api);

      s.setMode(policy, Mode.protect);
      NetworkPolicy rendered = await().atMost(WAIT).until(() -> networkPolicy(policy), np -> np != null);
      assertThat(rendered.getSpec()).isEqualTo(learned.spec().getKubernetes());
      assertControllerReference(rendered, s.policy(policy));
      assertThat(rendered.getMetadata().getAnnotations()).doesNotContainKey(Labels.ISTIO_DRY_RUN);

      s.setMode(policy, Mode.monitor);
      await("NetworkPolicy removed in monitor").atMost(WAIT).until(() -> networkPolicy(policy) == null);

      s.deleteAndAwaitTombstone(policy, learned);
    }
  }

  @Test
  void istioBackendLifecycle() throws Exception {
    Deployment checkout = cluster.admin().resource(Fixtures.deployment("checkout")).create();
    ProposalSnapshot learned = istioProposal("checkout", "frontend");

    try (Scenario s = new Scenario("istio.", ChartedApiServer.ISTIO)) {
      WorkloadNetworkPolicy policy = s.learnAndPromote(learned, checkout);

      // Monitor: rendered as a dry-run AuthorizationPolicy.
      GenericKubernetesResource dryRun = await().atMost(WAIT).until(() -> authorizationPolicy(policy),
          ap -> ap != null);
      assertThat(dryRun.getMetadata().getAnnotations()).containsEntry(Labels.ISTIO_DRY_RUN, "true");
      assertThat(dryRun.get("spec", "action").toString()).isEqualTo("ALLOW");
      assertControllerReference(dryRun, s.policy(policy));

      s.setMode(policy, Mode.protect);
      GenericKubernetesResource enforced = await().atMost(WAIT).until(() -> authorizationPolicy(policy),
          ap -> ap != null && (ap.getMetadata().getAnnotations() == null
              || !ap.getMetadata().getAnnotations().containsKey(Labels.ISTIO_DRY_RUN)));
      assertControllerReference(enforced, s.policy(policy));
      assertThat(Json.mapper().convertValue(enforced.get("spec", "selector"), Map.class))
          .isEqualTo(Map.of("matchLabels", Map.of("app", "checkout")));
      assertThat(Json.mapper().writeValueAsString(enforced.get("spec", "rules")))
          .contains("cluster.local/ns/" + NS + "/sa/frontend").contains("8080");

      s.setMode(policy, Mode.monitor);
      await("back to dry-run in monitor").atMost(WAIT).until(() -> authorizationPolicy(policy) != null
          && "true".equals(authorizationPolicy(policy).getMetadata().getAnnotations().get(Labels.ISTIO_DRY_RUN)));

      s.deleteAndAwaitTombstone(policy, learned);
    }
  }

  /** One writer (as its release's service account) on its own topics, driven like the processor and a person. */
  private static final class Scenario implements AutoCloseable {
    private final Topics topics;
    private final InMemoryLogRecordExporter events = InMemoryLogRecordExporter.create();
    private final KubernetesClient writerClient;
    private final WriterService writer;
    private final KubernetesClient admin = cluster.admin();

    Scenario(String prefix, String release) throws Exception {
      topics = new Topics(prefix);
      KafkaTopics.create(broker.bootstrapServers(), topics, 1);
      writerClient = cluster.writerClient(release);
      WriterConfig config = WriterConfig.builder()
          .namespace(ChartedApiServer.RELEASE_NAMESPACE)
          .leaseName(ChartedApiServer.leaseName(release))
          .identity(release + "-writer-0")
          .leaseDuration(Duration.ofSeconds(3)).renewDeadline(Duration.ofSeconds(2)).retryPeriod(Duration.ofMillis(300))
          .statusUpdateInterval(Duration.ofMillis(500))
          .consumerGroup(prefix + "writer")
          .kafka(new KafkaSettings(broker.bootstrapServers(), prefix, 1, (short) 1, Map.of()))
          .build().validate();
      writer = new WriterService(writerClient, config,
          new ServerSideApplyWriter(writerClient, config.fieldManager()),
          TelemetryExport.withExporter(events, "memory", CollectorStrategy.external), new SimpleMeterRegistry(),
          Clock.systemUTC());
      writer.start();
      await("writer leads").atMost(WAIT).until(writer::isLeader);
    }

    /** Learn → proposal (exact spec, ownerReference) → promote to monitor → violation → acknowledge. */
    WorkloadNetworkPolicy learnAndPromote(ProposalSnapshot learned, Deployment workload) throws Exception {
      KafkaTopics.produce(broker.bootstrapServers(), topics.proposals(), learned.target().key(), learned);
      WorkloadNetworkPolicyProposal proposal = await("proposal written").atMost(WAIT)
          .until(() -> proposal(learned), p -> p != null && p.getStatus() != null);
      assertThat(proposal.getSpec()).isEqualTo(learned.spec());
      assertControllerReference(proposal, workload);

      admin.resources(WorkloadNetworkPolicyProposal.class).inNamespace(NS).withName(learned.name())
          .edit(p -> withLabel(p, Labels.PROMOTE, "monitor"));
      WorkloadNetworkPolicy policy = await("promoted").atMost(WAIT)
          .until(() -> policy(learned.name()), p -> p != null && proposal(learned) == null);
      assertThat(policy.getSpec().getMode()).isEqualTo(Mode.monitor);
      assertThat(policy.getSpec().sameAllowListAs(learned.spec())).isTrue();
      assertThat(policy.getMetadata().getLabels()).containsEntry(Labels.PROMOTED_FROM, learned.name());
      await("policy published").atMost(WAIT).until(() -> latestPolicy(learned) != null);
      assertThat(latestPolicy(learned).mode()).isEqualTo(Mode.monitor);

      // A violation reaches the status as record 0, with the counts, and its event is sent.
      ViolationObservation observed = violation(learned, "intruder", Instant.parse("2026-03-01T10:00:00Z"));
      KafkaTopics.produce(broker.bootstrapServers(), topics.violations(), observed.policyKey(), observed);
      WorkloadNetworkPolicyStatus status = await("violation in status").atMost(WAIT)
          .until(() -> status(learned.name()), st -> st.getViolationCount() == 1);
      assertThat(status.getActiveViolationCount()).isEqualTo(1);
      assertThat(status.getViolations()).singleElement().satisfies(v -> {
        assertThat(v.getId()).isZero();
        assertThat(v.getSource().getOwnerName()).isEqualTo("intruder");
      });
      await("observed event").atMost(WAIT).until(() -> events("policy_violation_observed").size() == 1);

      // Acknowledge record 0: moved with its reason, annotation removed, event sent.
      admin.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName(learned.name()).edit(p -> {
        p.getMetadata().setAnnotations(Map.of(Labels.ACKNOWLEDGE_PREFIX + "0", "known scanner"));
        return p;
      });
      await("acknowledged").atMost(WAIT).until(() -> {
        WorkloadNetworkPolicy p = policy(learned.name());
        return (p.getMetadata().getAnnotations() == null
            || !p.getMetadata().getAnnotations().containsKey(Labels.ACKNOWLEDGE_PREFIX + "0"))
            && !p.getStatus().getAcknowledgedViolations().isEmpty();
      });
      WorkloadNetworkPolicyStatus acknowledged = status(learned.name());
      assertThat(acknowledged.getAcknowledgedViolations()).singleElement().satisfies(a -> {
        assertThat(a.getViolation().getId()).isZero();
        assertThat(a.getReason()).isEqualTo("known scanner");
      });
      assertThat(acknowledged.getViolations()).isEmpty();
      assertThat(acknowledged.getActiveViolationCount()).isZero();
      assertThat(acknowledged.getViolationCount()).isEqualTo(1);
      await("acknowledged event").atMost(WAIT).until(() -> events("policy_violation_acknowledged").size() == 1);
      return policy(learned.name());
    }

    void setMode(WorkloadNetworkPolicy policy, Mode mode) {
      admin.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName(policy.getMetadata().getName())
          .edit(p -> {
            p.getSpec().setMode(mode);
            return p;
          });
    }

    /** Deleting the policy tells the processor (tombstone), so learning can resume for the target. */
    void deleteAndAwaitTombstone(WorkloadNetworkPolicy policy, ProposalSnapshot learned) {
      admin.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName(policy.getMetadata().getName()).delete();
      await("policy tombstoned").atMost(WAIT).until(() -> {
        List<ConsumerRecord<String, byte[]>> records = KafkaTopics.readAll(broker.bootstrapServers(),
            topics.policies().name()).stream().filter(r -> r.key().equals(learned.target().key())).toList();
        return !records.isEmpty() && records.get(records.size() - 1).value() == null;
      });
    }

    WorkloadNetworkPolicy policy(WorkloadNetworkPolicy p) { return policy(p.getMetadata().getName()); }

    WorkloadNetworkPolicy policy(String name) {
      return admin.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName(name).get();
    }

    WorkloadNetworkPolicyProposal proposal(ProposalSnapshot learned) {
      return admin.resources(WorkloadNetworkPolicyProposal.class).inNamespace(NS).withName(learned.name()).get();
    }

    WorkloadNetworkPolicyStatus status(String name) {
      WorkloadNetworkPolicyStatus s = policy(name).getStatus();
      return s == null ? new WorkloadNetworkPolicyStatus() : s;
    }

    PolicySnapshot latestPolicy(ProposalSnapshot learned) throws Exception {
      byte[] value = null;
      for (ConsumerRecord<String, byte[]> r : KafkaTopics.readAll(broker.bootstrapServers(),
          topics.policies().name())) {
        if (r.key().equals(learned.target().key())) {
          value = r.value();
        }
      }
      return value == null ? null : Json.mapper().readValue(value, PolicySnapshot.class);
    }

    List<LogRecordData> events(String name) {
      return events.getFinishedLogRecordItems().stream().filter(r -> name.equals(r.getEventName())).toList();
    }

    @Override
    public void close() {
      writer.close();
      writerClient.close();
    }
  }

  private static ViolationObservation violation(ProposalSnapshot learned, String from, Instant at) {
    boolean istio = learned.spec().getBackend() == Backend.istio;
    return new ViolationObservation(NS, learned.name(), at, Fixtures.endpoint(from),
        Fixtures.endpoint(learned.spec().getTargetRef().getName()), Protocol.TCP, istio ? 0 : 9090, Mode.monitor,
        null, null, istio ? Provider.istio : Provider.calico, learned.spec().getBackend(), Direction.Ingress, 1);
  }

  private static ProposalSnapshot istioProposal(String target, String peerServiceAccount) {
    WorkloadNetworkPolicyProposalSpec spec = new WorkloadNetworkPolicyProposalSpec();
    spec.setBackend(Backend.istio);
    spec.setDirection(Direction.Ingress);
    spec.setTargetRef(new TargetRef(WorkloadKind.Deployment, target));
    spec.setIstio(new IstioPolicy(Fixtures.app(target), List.of(IstioPolicy.Rule.of(
        List.of("cluster.local/ns/" + NS + "/sa/" + peerServiceAccount), List.of("8080")))));
    return new ProposalSnapshot("deployment-" + target + "-ingress", NS, spec,
        List.of(new RuleEvidence(0, "cluster.local/ns/" + NS + "/sa/" + peerServiceAccount, List.of(new PortEvidence(
            "TCP", "8080", "2026-01-01T00:00:00Z", "2026-01-01T00:05:00Z", 3)))), Instant.parse("2026-01-01T00:05:00Z"));
  }

  private static NetworkPolicy networkPolicy(WorkloadNetworkPolicy policy) {
    return cluster.admin().network().v1().networkPolicies().inNamespace(NS).withName(policy.getMetadata().getName())
        .get();
  }

  private static GenericKubernetesResource authorizationPolicy(WorkloadNetworkPolicy policy) {
    return cluster.admin().genericKubernetesResources(AUTHORIZATION_POLICY).inNamespace(NS)
        .withName(policy.getMetadata().getName()).get();
  }

  private static void assertControllerReference(HasMetadata dependent, HasMetadata owner) {
    List<OwnerReference> refs = dependent.getMetadata().getOwnerReferences();
    assertThat(refs).singleElement().satisfies(ref -> {
      assertThat(ref.getKind()).isEqualTo(owner.getKind());
      assertThat(ref.getName()).isEqualTo(owner.getMetadata().getName());
      assertThat(ref.getUid()).isEqualTo(owner.getMetadata().getUid());
      assertThat(ref.getController()).isTrue();
    });
  }

  private static <T extends HasMetadata> T withLabel(T object, String key, String value) {
    Map<String, String> labels = new java.util.HashMap<>();
    if (object.getMetadata().getLabels() != null) {
      labels.putAll(object.getMetadata().getLabels());
    }
    labels.put(key, value);
    object.getMetadata().setLabels(labels);
    return object;
  }
}
