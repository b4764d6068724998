package io.kubewarden.networkenforcer.pipeline;

import static io.kubewarden.networkenforcer.pipeline.TestWorkloads.app;
import static io.kubewarden.networkenforcer.pipeline.TestWorkloads.endpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.testing.ServiceAccountAudit;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline behind the API, end to end: flows injected into Kafka, the stream processor learning
 * and evaluating, the writer (as the chart's service account) on a real kube-apiserver. Kubernetes
 * backend (provider calico): learn → proposal with the exact spec and ownerReference → promote to
 * monitor → a flow the policy does not allow becomes violation 0 in the status → acknowledge →
 * protect renders the NetworkPolicy → back to monitor removes it → deleting the policy lets
 * learning resume. Istio backend: learned principals and ports → dry-run AuthorizationPolicy in
 * monitor → a dry-run deny is violation 0 → protect drops dry-run → back to monitor → deleting lets
 * learning resume.
 */
class ApiServerPipelineTest {

  private static final String NS = "shop";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final ResourceDefinitionContext AUTHORIZATION_POLICY =
      new ResourceDefinitionContext.Builder()
          .withGroup("security.istio.io")
          .withVersion("v1")
          .withKind("AuthorizationPolicy")
          .withPlural("authorizationpolicies")
          .withNamespaced(true)
          .build();

  private static EmbeddedKafkaBroker broker;
  private static ChartedApiServer cluster;

  /** The API server's audit log: what each writer really asked for (least privilege, below). */
  @TempDir static Path auditDir;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster =
        ChartedApiServer.start(
            NS, ServiceAccountAudit.apiServerArgs(auditDir.resolve("audit.log")));
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
  void kubernetesBackendFromFlowsToEnforcementAndBack(@TempDir Path stateDir) throws Exception {
    String prefix = "pipeline-k8s.";
    KafkaSettings kafka =
        new KafkaSettings(broker.bootstrapServers(), prefix, 1, (short) 1, Map.of());
    Deployment web = deployment("web");
    Deployment client = deployment("client");
    deployment("intruder");
    deployment("client2");

    try (Processor processor =
            new Processor(
                ProcessorConfig.builder(kafka)
                    .applicationId(prefix.replace(".", "-") + "processor")
                    .provider(Provider.calico)
                    .backend(Backend.kubernetes)
                    .evidenceFlushInterval(Duration.ofMillis(500))
                    .commitInterval(Duration.ofMillis(200))
                    .stateDir(Files.createDirectories(stateDir.resolve("streams")))
                    .build()
                    .validate());
        Writer writer = new Writer(kafka, ChartedApiServer.KUBERNETES);
        Flows flows = new Flows(kafka.topics())) {
      await("processor running")
          .atMost(WAIT)
          .until(() -> processor.streams.state() == KafkaStreams.State.RUNNING);

      // Learn: one forwarded flow teaches web's ingress and client's egress.
      flows.send(forwarded("client", "web", 8080));
      WorkloadNetworkPolicyProposal learned =
          await("proposal learned")
              .atMost(WAIT)
              .until(() -> proposal("deployment-web-ingress"), p -> p != null);
      assertThat(learned.getSpec().getBackend()).isEqualTo(Backend.kubernetes);
      assertThat(learned.getSpec().getKubernetes()).isEqualTo(ingressFrom("web", "client", 8080));
      assertControllerReference(learned, web);
      assertThat(
              await("egress proposal")
                  .atMost(WAIT)
                  .until(() -> proposal("deployment-client-egress"), p -> p != null))
          .satisfies(p -> assertControllerReference(p, client));

      // Promote to monitor.
      mergePatch(
          WorkloadNetworkPolicyProposal.class,
          "deployment-web-ingress",
          Map.of("metadata", Map.of("labels", Map.of(Labels.PROMOTE, "monitor"))));
      WorkloadNetworkPolicy policy =
          await("promoted")
              .atMost(WAIT)
              .until(
                  () -> policy("deployment-web-ingress"),
                  p -> p != null && proposal("deployment-web-ingress") == null);
      assertThat(policy.getSpec().getMode()).isEqualTo(Mode.monitor);
      assertThat(policy.getSpec().getKubernetes()).isEqualTo(ingressFrom("web", "client", 8080));

      // Monitor: a forwarded flow the policy does not allow is violation 0. The processor learns
      // of the policy through the policies topic, so keep sending until it counts.
      await("violation in status")
          .atMost(WAIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                flows.send(forwarded("intruder", "web", 8080));
                return status("deployment-web-ingress").getViolationCount() > 0;
              });
      WorkloadNetworkPolicyStatus status = status("deployment-web-ingress");
      assertThat(status.getViolations())
          .singleElement()
          .satisfies(
              v -> {
                assertThat(v.getId()).isZero();
                assertThat(v.getSource().getOwnerName()).isEqualTo("intruder");
                assertThat(v.getDest().getOwnerName()).isEqualTo("web");
                assertThat(v.getDstPort()).isEqualTo(8080);
                assertThat(v.getAction()).isEqualTo(Mode.monitor);
              });
      assertThat(status.getActiveViolationCount()).isEqualTo(1);
      // The allowed peer is no violation.
      flows.send(forwarded("client", "web", 8080));

      // Acknowledge record 0.
      mergePatch(
          WorkloadNetworkPolicy.class,
          "deployment-web-ingress",
          Map.of(
              "metadata",
              Map.of("annotations", Map.of(Labels.ACKNOWLEDGE_PREFIX + "0", "pen test"))));
      await("acknowledged")
          .atMost(WAIT)
          .until(
              () ->
                  !status("deployment-web-ingress").getAcknowledgedViolations().isEmpty()
                      && !hasAnnotation(
                          policy("deployment-web-ingress"), Labels.ACKNOWLEDGE_PREFIX + "0"));
      WorkloadNetworkPolicyStatus acknowledged = status("deployment-web-ingress");
      assertThat(acknowledged.getAcknowledgedViolations())
          .singleElement()
          .satisfies(a -> assertThat(a.getReason()).isEqualTo("pen test"));
      assertThat(
              acknowledged.getViolations().stream()
                  .filter(v -> v.getSource().getOwnerName().equals("client")))
          .as("the allowed peer never became a violation")
          .isEmpty();

      // Protect: the NetworkPolicy appears, owned by the policy, with the learned spec.
      setMode("deployment-web-ingress", Mode.protect);
      NetworkPolicy rendered =
          await("NetworkPolicy rendered")
              .atMost(WAIT)
              .until(() -> networkPolicy("deployment-web-ingress"), np -> np != null);
      assertThat(rendered.getSpec()).isEqualTo(ingressFrom("web", "client", 8080));
      assertControllerReference(rendered, policy("deployment-web-ingress"));

      // Back to monitor: the NetworkPolicy goes.
      setMode("deployment-web-ingress", Mode.monitor);
      await("NetworkPolicy removed")
          .atMost(WAIT)
          .until(() -> networkPolicy("deployment-web-ingress") == null);

      // Delete the policy: learning resumes for web's ingress.
      admin()
          .resources(WorkloadNetworkPolicy.class)
          .inNamespace(NS)
          .withName("deployment-web-ingress")
          .delete();
      // The proposal may first come back with the allow-list learned before the promotion (the
      // processor publishes it when learning resumes), then with client2.
      await("learning resumed")
          .atMost(WAIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                flows.send(forwarded("client2", "web", 9090));
                var p = proposal("deployment-web-ingress");
                return p != null
                    && p.getSpec().getKubernetes().getIngress().stream()
                        .anyMatch(
                            rule -> app("client2").equals(rule.getFrom().get(0).getPodSelector()));
              });
      assertThat(proposal("deployment-web-ingress").getSpec().getKubernetes().getIngress())
          .anySatisfy(
              rule -> assertThat(rule.getFrom().get(0).getPodSelector()).isEqualTo(app("client2")));
      assertThat(writer.service.isLeader()).isTrue();
      assertThat(processor.streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }
    writerUsedItsGrants(ChartedApiServer.KUBERNETES);
  }

  @Test
  void istioBackendFromFlowsToEnforcementAndBack(@TempDir Path stateDir) throws Exception {
    String prefix = "pipeline-istio.";
    KafkaSettings kafka =
        new KafkaSettings(broker.bootstrapServers(), prefix, 1, (short) 1, Map.of());
    deployment("checkout");
    deployment("frontend");
    deployment("scanner");

    try (Processor processor =
            new Processor(
                ProcessorConfig.builder(kafka)
                    .applicationId(prefix.replace(".", "-") + "processor")
                    .provider(Provider.istio)
                    .backend(Backend.istio)
                    .evidenceFlushInterval(Duration.ofMillis(500))
                    .commitInterval(Duration.ofMillis(200))
                    .stateDir(Files.createDirectories(stateDir.resolve("streams")))
                    .build()
                    .validate());
        Writer writer = new Writer(kafka, ChartedApiServer.ISTIO);
        Flows flows = new Flows(kafka.topics())) {
      await("processor running")
          .atMost(WAIT)
          .until(() -> processor.streams.state() == KafkaStreams.State.RUNNING);

      // Learn: ztunnel saw frontend's identity reach checkout on 8080.
      flows.send(istioFlow("frontend", "checkout", 8080, Verdict.FORWARDED));
      WorkloadNetworkPolicyProposal learned =
          await("proposal learned")
              .atMost(WAIT)
              .until(() -> proposal("deployment-checkout-ingress"), p -> p != null);
      assertThat(learned.getSpec().getBackend()).isEqualTo(Backend.istio);
      assertThat(learned.getSpec().getIstio())
          .isEqualTo(
              new IstioPolicy(
                  app("checkout"),
                  List.of(IstioPolicy.Rule.of(List.of(principal("frontend")), List.of("8080")))));
      assertThat(learned.getSpec().getKubernetes()).isNull();
      assertThat(proposal("deployment-frontend-egress")).as("istio learns ingress only").isNull();

      // Promote to monitor: a dry-run AuthorizationPolicy.
      mergePatch(
          WorkloadNetworkPolicyProposal.class,
          "deployment-checkout-ingress",
          Map.of("metadata", Map.of("labels", Map.of(Labels.PROMOTE, "monitor"))));
      GenericKubernetesResource dryRun =
          await("dry-run AuthorizationPolicy")
              .atMost(WAIT)
              .until(() -> authorizationPolicy("deployment-checkout-ingress"), ap -> ap != null);
      assertThat(dryRun.getMetadata().getAnnotations()).containsEntry(Labels.ISTIO_DRY_RUN, "true");
      assertControllerReference(dryRun, policy("deployment-checkout-ingress"));

      // ztunnel's dry-run deny of an unknown identity is violation 0 (Istio records port 0).
      await("violation in status")
          .atMost(WAIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                flows.send(istioFlow("scanner", "checkout", 8080, Verdict.DRY_RUN_DENIED));
                return status("deployment-checkout-ingress").getViolationCount() > 0;
              });
      assertThat(status("deployment-checkout-ingress").getViolations())
          .first()
          .satisfies(
              v -> {
                assertThat(v.getId()).isZero();
                assertThat(v.getSource().getOwnerName()).isEqualTo("scanner");
                assertThat(v.getSource().getIdentity())
                    .as("prefix-free, api.md")
                    .isEqualTo(principal("scanner"));
                assertThat(v.getDstPort()).isZero();
                assertThat(v.getAction()).isEqualTo(Mode.monitor);
              });

      // Protect: the AuthorizationPolicy loses its dry-run annotation; back to monitor: it returns.
      setMode("deployment-checkout-ingress", Mode.protect);
      await("enforced AuthorizationPolicy")
          .atMost(WAIT)
          .until(
              () ->
                  !hasAnnotation(
                      authorizationPolicy("deployment-checkout-ingress"), Labels.ISTIO_DRY_RUN));
      setMode("deployment-checkout-ingress", Mode.monitor);
      await("dry-run again")
          .atMost(WAIT)
          .until(
              () ->
                  hasAnnotation(
                      authorizationPolicy("deployment-checkout-ingress"), Labels.ISTIO_DRY_RUN));

      // Delete the policy: learning resumes.
      admin()
          .resources(WorkloadNetworkPolicy.class)
          .inNamespace(NS)
          .withName("deployment-checkout-ingress")
          .delete();
      await("learning resumed")
          .atMost(WAIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                flows.send(istioFlow("frontend", "checkout", 8443, Verdict.FORWARDED));
                return proposal("deployment-checkout-ingress") != null;
              });
      assertThat(writer.service.isLeader()).isTrue();
      assertThat(processor.streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }
    writerUsedItsGrants(ChartedApiServer.ISTIO);
  }

  private static FlowRecord istioFlow(String from, String to, int port, Verdict verdict) {
    PolicyRef denying =
        verdict == Verdict.FORWARDED
            ? null
            : new PolicyRef("AuthorizationPolicy", NS, "deployment-" + to + "-ingress");
    return new FlowRecord(
        Instant.now(),
        Provider.istio,
        Protocol.TCP,
        port,
        endpoint(NS, from).toBuilder().identity("spiffe://" + principal(from)).build(),
        endpoint(NS, to).toBuilder().identity("spiffe://" + principal(to)).build(),
        verdict,
        denying,
        1,
        Reporter.DESTINATION);
  }

  private static String principal(String workload) {
    return "cluster.local/ns/" + NS + "/sa/" + workload;
  }

  private static GenericKubernetesResource authorizationPolicy(String name) {
    return admin()
        .genericKubernetesResources(AUTHORIZATION_POLICY)
        .inNamespace(NS)
        .withName(name)
        .get();
  }

  /** The stream processor's topology on its topics, as the processor service runs it. */
  private static final class Processor implements AutoCloseable {
    final KafkaStreams streams;

    Processor(ProcessorConfig config) throws Exception {
      try (Admin admin = Admin.create(config.kafka().clientConfig())) {
        ProcessorTopics.create(admin, config, 1);
      }
      streams =
          new KafkaStreams(
              NetworkEnforcerTopology.build(config, new SimpleMeterRegistry()),
              config.streamsProperties());
      streams.start();
    }

    @Override
    public void close() {
      streams.close(Duration.ofSeconds(30));
    }
  }

  /** The writer as the chart's writer service account of that release. */
  private static final class Writer implements AutoCloseable {
    final KubernetesClient client;
    final WriterService service;

    Writer(KafkaSettings kafka, String release) {
      client = cluster.writerClient(release);
      service = TestWriters.start(client, kafka, release, release + "-writer-0");
      await("writer leads").atMost(WAIT).until(service::isLeader);
    }

    @Override
    public void close() {
      service.close();
      client.close();
    }
  }

  /** Sends flow records to the flows topic, as the ingest service does. */
  private static final class Flows implements AutoCloseable {
    private final Topics topics;
    private final KafkaProducer<String, FlowRecord> producer;

    Flows(Topics topics) {
      this.topics = topics;
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      producer =
          new KafkaProducer<>(
              props,
              topics.flows().keySerde().serializer(),
              topics.flows().valueSerde().serializer());
    }

    void send(FlowRecord flow) throws Exception {
      producer.send(new ProducerRecord<>(topics.flows().name(), flow.partitionKey(), flow)).get();
    }

    @Override
    public void close() {
      producer.close();
    }
  }

  private static FlowRecord forwarded(String from, String to, int port) {
    return new FlowRecord(
        Instant.now(),
        Provider.calico,
        Protocol.TCP,
        port,
        endpoint(NS, from),
        endpoint(NS, to),
        Verdict.FORWARDED,
        null,
        1,
        Reporter.SOURCE);
  }

  private static NetworkPolicySpec ingressFrom(String target, String peer, int port) {
    return new NetworkPolicySpecBuilder()
        .withPodSelector(app(target))
        .withPolicyTypes("Ingress")
        .addNewIngress()
        .addNewFrom()
        .withNewNamespaceSelector()
        .withMatchLabels(Map.of(Labels.NAMESPACE_NAME, NS))
        .endNamespaceSelector()
        .withPodSelector(app(peer))
        .endFrom()
        .addNewPort()
        .withProtocol("TCP")
        .withNewPort(port)
        .endPort()
        .endIngress()
        .build();
  }

  private static Deployment deployment(String name) {
    return TestWorkloads.create(admin(), NS, name);
  }

  private static KubernetesClient admin() {
    return cluster.admin();
  }

  private static WorkloadNetworkPolicyProposal proposal(String name) {
    return admin()
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(NS)
        .withName(name)
        .get();
  }

  private static WorkloadNetworkPolicy policy(String name) {
    return admin().resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName(name).get();
  }

  private static WorkloadNetworkPolicyStatus status(String name) {
    WorkloadNetworkPolicy p = policy(name);
    return p == null || p.getStatus() == null ? new WorkloadNetworkPolicyStatus() : p.getStatus();
  }

  private static NetworkPolicy networkPolicy(String name) {
    return admin().network().v1().networkPolicies().inNamespace(NS).withName(name).get();
  }

  /**
   * Least privilege, measured: the (verb, group, resource) of every request the release's writer
   * sent during the test, read from the API server's audit log, against the chart's grants to its
   * service account on this API server. Every request outside the grants and every grant never
   * requested must be one of the few below, each with its reason; a new one fails here.
   */
  private static void writerUsedItsGrants(String release) throws Exception {
    String account = release + "-network-enforcer-writer";
    List<ServiceAccountAudit.Request> requests =
        ServiceAccountAudit.requests(
            auditDir.resolve("audit.log"), ChartedApiServer.RELEASE_NAMESPACE, account);
    Set<String> granted =
        ServiceAccountAudit.granted(admin(), ChartedApiServer.RELEASE_NAMESPACE, account);
    Set<String> requested = new TreeSet<>();
    requests.forEach(r -> requested.add(r.permission()));
    Set<String> unused = new TreeSet<>(granted);
    unused.removeAll(requested);
    Set<String> refused = new TreeSet<>();
    requests.stream().filter(r -> r.code() == 403).forEach(r -> refused.add(r.permission()));
    boolean istio = release.equals(ChartedApiServer.ISTIO);
    String nativeKind =
        istio ? "security.istio.io/authorizationpolicies" : "networking.k8s.io/networkpolicies";
    Map<String, String> notRequested = new TreeMap<>();
    // Checked by the API server inside another request, never a request of their own.
    for (String owner :
        List.of(
            "apps/daemonsets",
            "apps/deployments",
            "apps/statefulsets",
            "batch/cronjobs",
            "networkenforcer.kubewarden.io/workloadnetworkpolicies")) {
      notRequested.put(
          "update " + owner + "/finalizers",
          "blockOwnerDeletion on an owner reference (OwnerReferencesPermissionEnforcement)");
    }
    for (String applied :
        List.of("networkenforcer.kubewarden.io/workloadnetworkpolicyproposals", nativeKind)) {
      notRequested.put("create " + applied, "a server-side apply (patch) that creates");
    }
    // Requests of paths this test does not take.
    notRequested.put("create /events", "a name clash or a refused write (ControllerTest)");
    notRequested.put(
        "create authentication.k8s.io/tokenreviews", "a management request (ManagementAuthTest)");
    notRequested.put(
        "create authorization.k8s.io/subjectaccessreviews",
        "a management request (ManagementAuthTest)");
    if (istio) {
      notRequested.put("delete " + nativeKind, "monitor keeps a dry-run AuthorizationPolicy");
      notRequested.put(
          "patch networkenforcer.kubewarden.io/workloadnetworkpolicies",
          "an acknowledgement (the kubernetes run)");
    }
    // The drift watch of the other backend's native kind: the chart grants only its own, the
    // writer stops that watch at the 403 (DriftWatches).
    String otherKind =
        istio ? "networking.k8s.io/networkpolicies" : "security.istio.io/authorizationpolicies";
    System.out.println(
        "writer ("
            + release
            + ") RBAC, from the audit log: "
            + requests.size()
            + " requests; permissions granted "
            + granted.size()
            + ", requested "
            + (granted.size() - unused.size())
            + ", granted and never requested "
            + unused.size()
            + "; requested and refused: "
            + refused);
    notRequested.forEach(
        (p, why) -> System.out.println("  not requested: " + p + " (" + why + ")"));
    assertThat(unused).containsExactlyInAnyOrderElementsOf(notRequested.keySet());
    assertThat(refused).containsExactly("list " + otherKind);
    Set<String> ungranted = new TreeSet<>(requested);
    ungranted.removeAll(granted);
    assertThat(ungranted).isEqualTo(refused);
  }

  private static void setMode(String name, Mode mode) {
    mergePatch(WorkloadNetworkPolicy.class, name, Map.of("spec", Map.of("mode", mode.name())));
  }

  /**
   * A person's change: a merge patch, so the writer's concurrent status writes cannot conflict with
   * it.
   */
  private static <T extends HasMetadata> void mergePatch(
      Class<T> type, String name, Map<String, Object> patch) {
    admin()
        .resources(type)
        .inNamespace(NS)
        .withName(name)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            admin().getKubernetesSerialization().asJson(patch));
  }

  private static boolean hasAnnotation(HasMetadata object, String key) {
    return object != null
        && object.getMetadata().getAnnotations() != null
        && object.getMetadata().getAnnotations().containsKey(key);
  }

  private static void assertControllerReference(HasMetadata dependent, HasMetadata owner) {
    List<OwnerReference> refs = dependent.getMetadata().getOwnerReferences();
    assertThat(refs)
        .singleElement()
        .satisfies(
            ref -> {
              assertThat(ref.getKind()).isEqualTo(owner.getKind());
              assertThat(ref.getName()).isEqualTo(owner.getMetadata().getName());
              assertThat(ref.getUid()).isEqualTo(owner.getMetadata().getUid());
              assertThat(ref.getController()).isTrue();
            });
  }
}
