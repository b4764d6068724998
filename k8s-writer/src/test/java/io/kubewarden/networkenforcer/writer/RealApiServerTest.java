package io.kubewarden.networkenforcer.writer;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartTemplates;
import io.kubewarden.networkenforcer.testing.CiliumCrds;
import io.kubewarden.networkenforcer.testing.IstioCrds;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackProxy;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.rendering.AuthorizationPolicies;
import io.kubewarden.networkenforcer.writer.rendering.CiliumNetworkPolicies;
import io.kubewarden.networkenforcer.writer.rendering.IstioAvailability;
import io.kubewarden.networkenforcer.writer.rendering.NativeRenderer;
import io.kubewarden.networkenforcer.writer.rendering.RenderConditions;
import io.kubewarden.networkenforcer.writer.telemetry.CollectorStrategy;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The writer against a real kube-apiserver (etcd, the chart's CRDs with their CEL rules) with real
 * server-side apply, running as the chart's writer service account under the chart's RBAC.
 */
class RealApiServerTest {
  static final Duration WAIT = Duration.ofSeconds(60);
  static final String WRITER_NS = ChartTemplates.NAMESPACE;
  static final String SERVICE_ACCOUNT = "ne-network-enforcer-writer";
  static final String LEASE = "ne-network-enforcer-writer";
  static KubeApiServer api;
  static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void start() {
    api = KubeApiServer.builder().start();
    broker = EmbeddedKafkaBroker.startDefault();
    KubernetesClient admin = api.client();
    ProjectCrds.install(admin, WAIT);
    IstioCrds.installAuthorizationPolicy(admin, WAIT);
    CiliumCrds.installCiliumNetworkPolicy(admin, WAIT);
    for (String ns : List.of(NS, WRITER_NS)) {
      admin
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    // The service accounts and RBAC the chart gives a kubernetes-backend (calico) installation.
    String rbac =
        ChartTemplates.render(
            "--show-only",
            "templates/rbac.yaml",
            "--show-only",
            "templates/serviceaccounts.yaml",
            "--set",
            "mode=distributed",
            "--set",
            "kafka.bootstrapServers=kafka:9092",
            "--set",
            "controller.provider.name=calico");
    List<HasMetadata> objects =
        admin.load(new ByteArrayInputStream(rbac.getBytes(StandardCharsets.UTF_8))).items();
    // Only the writer's part: cluster-wide roles and what lives in its own namespace.
    objects.stream()
        .filter(
            o ->
                o.getMetadata().getNamespace() == null
                    || WRITER_NS.equals(o.getMetadata().getNamespace()))
        .forEach(o -> admin.resource(o).forceConflicts().serverSideApply());
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
    if (api != null) {
      api.close();
    }
  }

  static KubernetesClient writerClient() {
    return api.serviceAccountClient(WRITER_NS, SERVICE_ACCOUNT);
  }

  @Test
  void learnPromoteProtectRecordAcknowledgeUnderTheChartsRbac() throws Exception {
    KubernetesClient admin = api.client();
    admin.resource(Fixtures.deployment("api")).create();
    String bootstrap = broker.bootstrapServers();
    Topics topics = new Topics("real.");
    KafkaTopics.create(bootstrap, topics, 1);
    WriterConfig config =
        WriterConfig.builder()
            .namespace(WRITER_NS)
            .leaseName(LEASE)
            .identity("writer-0")
            .leaseDuration(Duration.ofSeconds(4))
            .renewDeadline(Duration.ofSeconds(3))
            .retryPeriod(Duration.ofMillis(500))
            .statusUpdateInterval(Duration.ofMillis(500))
            .consumerGroup("real-writer")
            .kafka(new KafkaSettings(bootstrap, "real.", 1, (short) 1, Map.of()))
            .build()
            .validate();
    InMemoryLogRecordExporter otel = InMemoryLogRecordExporter.create();
    try (KubernetesClient client = writerClient();
        WriterService writer =
            new WriterService(
                client,
                config,
                new ServerSideApplyWriter(client, config.fieldManager()),
                TelemetryExport.withExporter(otel, "memory", CollectorStrategy.external),
                new SimpleMeterRegistry(),
                Clock.systemUTC())) {
      writer.start();
      await().atMost(WAIT).until(writer::isLeader);

      ProposalSnapshot snapshot = Fixtures.proposal("api", "web");
      KafkaTopics.produce(bootstrap, topics.proposals(), snapshot.target().key(), snapshot);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  proposal(admin) != null
                      && proposal(admin).getStatus() != null
                      && !proposal(admin).getStatus().getEvidence().isEmpty());
      WorkloadNetworkPolicyProposal p = proposal(admin);
      assertThat(p.getSpec()).isEqualTo(snapshot.spec());
      assertThat(p.getMetadata().getOwnerReferences().get(0).getUid())
          .isEqualTo(
              admin
                  .apps()
                  .deployments()
                  .inNamespace(NS)
                  .withName("api")
                  .get()
                  .getMetadata()
                  .getUid());
      assertThat(p.getMetadata().getManagedFields())
          .anySatisfy(
              m -> {
                assertThat(m.getManager()).isEqualTo("network-enforcer");
                assertThat(m.getOperation()).isEqualTo("Apply");
              });

      // A person promotes it to protect with kubectl label (another field manager).
      admin
          .resources(WorkloadNetworkPolicyProposal.class)
          .inNamespace(NS)
          .withName("deployment-api-ingress")
          .edit(
              x -> {
                x.getMetadata().getLabels().put(Labels.PROMOTE, "protect");
                return x;
              });
      await().atMost(WAIT).until(() -> policy(admin) != null && proposal(admin) == null);
      await().atMost(WAIT).until(() -> networkPolicy(admin) != null);
      NetworkPolicy np = networkPolicy(admin);
      assertThat(np.getSpec()).isEqualTo(policy(admin).getSpec().getKubernetes());
      assertThat(np.getMetadata().getOwnerReferences().get(0).getUid())
          .isEqualTo(policy(admin).getMetadata().getUid());
      // Every NetworkPolicy reaches native-policies (monitor mode evaluates the union), under the
      // chart's RBAC.
      String npKey = NS + "/deployment-api-ingress";
      await()
          .atMost(WAIT)
          .until(
              () ->
                  KafkaTopics.readAll(bootstrap, topics.nativePolicies().name()).stream()
                      .anyMatch(r -> npKey.equals(r.key()) && r.value() != null));

      // Violations reach the status; an acknowledgement moves one; the annotation goes.
      Instant t = Instant.parse("2026-03-01T10:00:00Z");
      String key = NS + "/deployment-api-ingress";
      KafkaTopics.produce(
          bootstrap, topics.violations(), key, Fixtures.violation("api", "batch", 9090, t));
      KafkaTopics.produce(
          bootstrap, topics.violations(), key, Fixtures.violation("api", "cron", 9090, t));
      await()
          .atMost(WAIT)
          .until(
              () ->
                  policy(admin).getStatus() != null
                      && policy(admin).getStatus().getViolationCount() == 2);
      admin
          .resources(WorkloadNetworkPolicy.class)
          .inNamespace(NS)
          .withName("deployment-api-ingress")
          .edit(
              x -> {
                x.getMetadata()
                    .setAnnotations(Map.of(Labels.ACKNOWLEDGE_PREFIX + "1", "cron is fine"));
                return x;
              });
      await()
          .atMost(WAIT)
          .until(
              () ->
                  policy(admin).getMetadata().getAnnotations() == null
                      || policy(admin).getMetadata().getAnnotations().isEmpty());
      assertThat(policy(admin).getStatus().getAcknowledgedViolations())
          .singleElement()
          .satisfies(a -> assertThat(a.getReason()).isEqualTo("cron is fine"));
      assertThat(policy(admin).getStatus().getActiveViolationCount()).isEqualTo(1);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  otel.getFinishedLogRecordItems().stream()
                      .anyMatch(r -> "policy_violation_acknowledged".equals(r.getEventName())));

      // Back to monitor: the NetworkPolicy goes.
      admin
          .resources(WorkloadNetworkPolicy.class)
          .inNamespace(NS)
          .withName("deployment-api-ingress")
          .edit(
              x -> {
                x.getSpec().setMode(Mode.monitor);
                return x;
              });
      await().atMost(WAIT).until(() -> networkPolicy(admin) == null);
      await()
          .atMost(WAIT)
          .until(
              () -> {
                var records = KafkaTopics.readAll(bootstrap, topics.nativePolicies().name());
                return !records.isEmpty()
                    && npKey.equals(records.get(records.size() - 1).key())
                    && records.get(records.size() - 1).value() == null;
              });
      // The lease is held by the writer, in its namespace.
      assertThat(
              admin
                  .leases()
                  .inNamespace(WRITER_NS)
                  .withName(LEASE)
                  .get()
                  .getSpec()
                  .getHolderIdentity())
          .isEqualTo("writer-0");
    }
  }

  @Test
  void aStatusWriteOnAStaleCopyIsAConflict() {
    KubernetesClient admin = api.client();
    WorkloadNetworkPolicy wnp = Fixtures.wnp("stale", "web", Mode.monitor);
    admin.resource(wnp).create();
    WorkloadNetworkPolicy stale =
        admin
            .resources(WorkloadNetworkPolicy.class)
            .inNamespace(NS)
            .withName("deployment-stale-ingress")
            .get();
    admin
        .resources(WorkloadNetworkPolicy.class)
        .inNamespace(NS)
        .withName("deployment-stale-ingress")
        .edit(
            x -> {
              x.getMetadata().setLabels(Map.of("touched", "yes"));
              return x;
            });
    stale.setStatus(new WorkloadNetworkPolicyStatus());
    stale.getStatus().setViolationCount(1);
    assertThatThrownBy(
            () -> new ServerSideApplyWriter(admin, "network-enforcer").updateStatus(stale))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
  }

  /**
   * A write the leader guard let through and the network then dropped must fail, not wait in the
   * client's retries: resent after the partition heals, it would land an old desired state over the
   * new leader's (the fault-injection seed 4071883827913844071 lost a learned port that way).
   */
  @Test
  void aWriteCutOffByAPartitionFailsAndIsNotSentAgainOnceItHeals() throws Exception {
    KubernetesClient admin = api.client();
    ConfigMap wanted =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("partitioned")
            .withNamespace(NS)
            .endMetadata()
            .addToData("desired", "old")
            .build();
    try (LoopbackProxy proxy = LoopbackProxy.to(admin.getConfiguration().getMasterUrl());
        KubernetesClient viaProxy =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder(admin.getConfiguration()).withMasterUrl(proxy.url()).build())
                .build();
        ServerSideApplyWriter writer = new ServerSideApplyWriter(viaProxy, "network-enforcer")) {
      proxy.partition();
      CompletableFuture<ConfigMap> write =
          CompletableFuture.supplyAsync(() -> writer.apply(wanted));
      try {
        write.get(3, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // Failed (one attempt) or still waiting (a client that retries: its next attempt would
        // land).
      }
      proxy.heal();
      assertThatThrownBy(() -> write.get(60, TimeUnit.SECONDS))
          .as("the write made during the partition")
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(KubernetesClientException.class);
      assertThat(admin.configMaps().inNamespace(NS).withName("partitioned").get()).isNull();
      // The work queue's next attempt goes through once the network is back.
      assertThat(writer.apply(wanted).getData()).containsEntry("desired", "old");
    }
  }

  @Test
  void serverSideApplyDropsTheDryRunAnnotationWhenTheIstioPolicyIsProtected() {
    KubernetesClient admin = api.client();
    RenderConditions conditions = new RenderConditions();
    NativeRenderer renderer =
        new NativeRenderer(
            admin,
            new ServerSideApplyWriter(admin, "network-enforcer"),
            new IstioAvailability(admin, Duration.ofMinutes(1), Clock.systemUTC()),
            conditions,
            new SimpleMeterRegistry());
    WorkloadNetworkPolicy wnp =
        admin.resource(Fixtures.istioWnp("mesh", Fixtures.app("mesh"), Mode.monitor)).create();
    renderer.render(wnp);
    assertThat(authorizationPolicy(admin).getMetadata().getAnnotations())
        .containsEntry(Labels.ISTIO_DRY_RUN, "true");

    wnp.getSpec().setMode(Mode.protect);
    renderer.render(wnp);
    GenericKubernetesResource ap = authorizationPolicy(admin);
    assertThat(
            ap.getMetadata().getAnnotations() == null
                ? Map.of()
                : ap.getMetadata().getAnnotations())
        .doesNotContainKey(Labels.ISTIO_DRY_RUN);
    assertThat(conditions.of(NS + "/deployment-mesh-ingress").get(0).getStatus()).isEqualTo("True");
  }

  /**
   * A cilium policy in protect mode becomes a CiliumNetworkPolicy that Cilium's own CRD admits,
   * with the spec as it is (toFQDNs and the DNS rule included); back in monitor mode it is deleted.
   */
  @Test
  void aProtectedCiliumPolicyIsACiliumNetworkPolicyAndMonitorModeDeletesIt() throws Exception {
    KubernetesClient admin = api.client();
    RenderConditions conditions = new RenderConditions();
    NativeRenderer renderer =
        new NativeRenderer(
            admin,
            new ServerSideApplyWriter(admin, "network-enforcer"),
            new IstioAvailability(admin, Duration.ofMinutes(1), Clock.systemUTC()),
            conditions,
            new SimpleMeterRegistry());
    WorkloadNetworkPolicy wnp =
        admin.resource(Fixtures.ciliumEgressWnp("egress-app", Mode.protect)).create();

    renderer.render(wnp);

    GenericKubernetesResource cnp =
        admin
            .genericKubernetesResources(CiliumNetworkPolicies.CONTEXT)
            .inNamespace(NS)
            .withName("deployment-egress-app-egress")
            .get();
    assertThat(cnp).isNotNull();
    assertThat(
            Json.mapper()
                .convertValue(cnp.getAdditionalProperties().get("spec"), CiliumPolicy.class))
        .isEqualTo(wnp.getSpec().getCilium());
    assertThat(cnp.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(wnp.getMetadata().getUid()));
    assertThat(conditions.of(NS + "/deployment-egress-app-egress").get(0).getMessage())
        .isEqualTo("CiliumNetworkPolicy deployment-egress-app-egress enforces this policy");

    wnp.getSpec().setMode(Mode.monitor);
    renderer.render(wnp);
    assertThat(
            admin
                .genericKubernetesResources(CiliumNetworkPolicies.CONTEXT)
                .inNamespace(NS)
                .withName("deployment-egress-app-egress")
                .get())
        .isNull();
  }

  static WorkloadNetworkPolicyProposal proposal(KubernetesClient c) {
    return c.resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(NS)
        .withName("deployment-api-ingress")
        .get();
  }

  static WorkloadNetworkPolicy policy(KubernetesClient c) {
    return c.resources(WorkloadNetworkPolicy.class)
        .inNamespace(NS)
        .withName("deployment-api-ingress")
        .get();
  }

  static NetworkPolicy networkPolicy(KubernetesClient c) {
    return c.network()
        .v1()
        .networkPolicies()
        .inNamespace(NS)
        .withName("deployment-api-ingress")
        .get();
  }

  static GenericKubernetesResource authorizationPolicy(KubernetesClient c) {
    return c.genericKubernetesResources(AuthorizationPolicies.CONTEXT)
        .inNamespace(NS)
        .withName("deployment-mesh-ingress")
        .get();
  }
}
