package io.kubewarden.networkenforcer.writer.proposals;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.KafkaTopics;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.conditions.ProposalConditions;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The proposal reconciler on a real kube-apiserver with the chart's CRDs, admission policies and
 * the writer's RBAC: reviewers' edits survive learning, a proposal from Git gets its owner, a name
 * clash keeps the proposal, a proposal the API server refuses (invalid, or too large to store) is
 * parked and reported without holding up the others, a target with thousands of peers gets its
 * proposal, and a CronJob's proposal is owned by the CronJob and carries the processor's Converged
 * condition next to Ready.
 */
class ApiServerProposalReconcilerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PREFIX = "reconcile.";
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final Topics TOPICS = new Topics(PREFIX);

  private static EmbeddedKafkaBroker broker;
  private static ChartedApiServer cluster;
  private static KubernetesClient writerClient;
  private static WriterService writer;
  private static final SimpleMeterRegistry METERS = new SimpleMeterRegistry();

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster = ChartedApiServer.start(NS);
    KafkaTopics.create(broker.bootstrapServers(), TOPICS, 1);
    for (String name :
        List.of(
            "api", "web", "batch", "db", "gamma", "delta", "other", "front", "kappa", "lambda",
            "omega", "sigma", "dns", "scraper", "tau")) {
      cluster.admin().resource(Fixtures.deployment(name)).create();
    }
    writerClient = cluster.writerClient(RELEASE);
    WriterConfig config =
        Fixtures.quickWriter(broker.bootstrapServers(), PREFIX, 1)
            .namespace(ChartedApiServer.RELEASE_NAMESPACE)
            .leaseName(ChartedApiServer.leaseName(RELEASE))
            .leaseDuration(Duration.ofSeconds(4))
            .renewDeadline(Duration.ofSeconds(3))
            .statusUpdateInterval(Duration.ofMillis(500))
            .build()
            .validate();
    writer =
        new WriterService(
            writerClient,
            config,
            new ServerSideApplyWriter(writerClient, config.fieldManager()),
            TelemetryExport.create(TelemetrySettings.disabled(), config.namespace()),
            METERS,
            Clock.systemUTC());
    writer.start();
    await().atMost(WAIT).until(writer::isLeader);
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
  void aReviewersEditStandsUntilNewTrafficThenNewPeersAreMergedIntoIt() throws Exception {
    KubernetesClient admin = cluster.admin();
    publish(snapshot("api", List.of("web")));
    await().atMost(WAIT).until(() -> ready(proposal("deployment-api-ingress")).isPresent());

    // A reviewer replaces the learned peer web with db (kubectl edit: another field manager).
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () ->
                proposals()
                        .withName("deployment-api-ingress")
                        .edit(
                            p -> {
                              p.getSpec().setKubernetes(Fixtures.ingressFrom("api", "db"));
                              return p;
                            })
                    != null);

    // The processor flushes evidence of the same allow-list: the edit stands.
    ProposalSnapshot sameAllowList = snapshot("api", List.of("web"));
    publish(sameAllowList);
    await()
        .atMost(WAIT)
        .until(
            () ->
                KafkaTopics.committed(
                        broker.bootstrapServers(),
                        PREFIX + "writer-proposals",
                        TOPICS.proposals().name())
                    >= 2);
    assertThat(peers(proposal("deployment-api-ingress"))).containsExactly("db");

    // New traffic from batch: batch is merged into what the reviewer left; web stays removed.
    publish(snapshot("api", List.of("web", "batch")));
    await().atMost(WAIT).until(() -> peers(proposal("deployment-api-ingress")).contains("batch"));
    WorkloadNetworkPolicyProposal merged = proposal("deployment-api-ingress");
    assertThat(peers(merged)).containsExactly("db", "batch");
    assertThat(
            Json.mapper()
                .readValue(
                    merged.getMetadata().getAnnotations().get(ProposalReconciler.LEARNED_SPEC),
                    WorkloadNetworkPolicyProposalSpec.class))
        .as("the learned spec applied last")
        .isEqualTo(snapshot("api", List.of("web", "batch")).spec());
    assertThat(ready(merged))
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getObservedGeneration()).isEqualTo(merged.getMetadata().getGeneration());
            });
    assertThat(merged.getStatus().getObservedGeneration())
        .isEqualTo(merged.getMetadata().getGeneration());
  }

  @Test
  void
      snapshotAnnotationsReachTheProposalAndAnInferredMarkGoesWhenTheClusterConfirmsTheWorkloads() {
    ProposalSnapshot plain = snapshot("sigma", List.of("web"));
    ProposalSnapshot inferred =
        new ProposalSnapshot(
            plain.name(),
            plain.namespace(),
            plain.spec(),
            plain.evidence(),
            plain.updatedAt(),
            List.of(NS + "/Deployment/web"),
            Map.of(Labels.REPLAYED_FROM, "2026-03-01T10:00:00Z/2026-03-01T11:00:00Z"));
    publish(inferred);
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> annotation("deployment-sigma-ingress", Labels.INFERRED_WORKLOADS) != null);
    assertThat(annotation("deployment-sigma-ingress", Labels.INFERRED_WORKLOADS))
        .isEqualTo(NS + "/Deployment/web");
    assertThat(annotation("deployment-sigma-ingress", Labels.REPLAYED_FROM))
        .isEqualTo("2026-03-01T10:00:00Z/2026-03-01T11:00:00Z");

    // The same allow-list, the peer now named by the cluster: the mark goes, the spec stays.
    publish(plain);
    await()
        .atMost(WAIT)
        .until(() -> annotation("deployment-sigma-ingress", Labels.INFERRED_WORKLOADS) == null);
    assertThat(proposal("deployment-sigma-ingress").getSpec()).isEqualTo(plain.spec());
  }

  private static double writerMeter(String name) {
    return METERS.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  @Test
  void howEachPortWasSeenReachesTheStatusEvidenceThroughTheCrdSchema() {
    ProposalSnapshot plain = snapshot("tau", List.of("web"));
    PortEvidence seen =
        new PortEvidence("TCP", "8080", "2026-01-01T00:00:00Z", "2026-01-01T00:05:00Z", 3);
    seen.setSeenAs(List.of("destination-record", "l7-request"));
    publish(
        new ProposalSnapshot(
            plain.name(),
            plain.namespace(),
            plain.spec(),
            List.of(new RuleEvidence(0, NS + "/Deployment/web", List.of(seen))),
            plain.updatedAt()));

    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () ->
                ready(proposal("deployment-tau-ingress"))
                    .filter(c -> "True".equals(c.getStatus()))
                    .isPresent());
    // Not pruned by the API server: the schema in the chart declares it.
    assertThat(
            proposal("deployment-tau-ingress")
                .getStatus()
                .getEvidence()
                .get(0)
                .getPorts()
                .get(0)
                .getSeenAs())
        .containsExactly("destination-record", "l7-request");
  }

  @Test
  void anUneditedProposalFollowsTheLearnedSpecInItsOrder() {
    cluster.admin().resource(Fixtures.deployment("zeta")).create();
    ProposalSnapshot first = withPorts(snapshot("zeta", List.of("web")), 9090);
    publish(first);
    await()
        .atMost(WAIT)
        .until(() -> ports(proposal("deployment-zeta-ingress")).equals(List.of(9090)));

    // Port 8080 learned later sorts before 9090 in the learned spec: nobody edited the proposal, so
    // it
    // becomes the learned spec as it is (not 9090 with 8080 appended).
    ProposalSnapshot second = withPorts(snapshot("zeta", List.of("web")), 8080, 9090);
    publish(
        new ProposalSnapshot(
            second.name(),
            second.namespace(),
            second.spec(),
            second.evidence(),
            second.updatedAt().plusSeconds(30)));
    await().atMost(WAIT).until(() -> ports(proposal("deployment-zeta-ingress")).size() == 2);
    assertThat(ports(proposal("deployment-zeta-ingress"))).containsExactly(8080, 9090);
    assertThat(proposal("deployment-zeta-ingress").getSpec()).isEqualTo(second.spec());
  }

  private static ProposalSnapshot withPorts(ProposalSnapshot s, int... ports) {
    s.spec()
        .getKubernetes()
        .getIngress()
        .get(0)
        .setPorts(
            Arrays.stream(ports)
                .mapToObj(
                    p -> new NetworkPolicyPortBuilder().withProtocol("TCP").withNewPort(p).build())
                .toList());
    return s;
  }

  private static List<Integer> ports(WorkloadNetworkPolicyProposal p) {
    return p == null
        ? List.of()
        : p.getSpec().getKubernetes().getIngress().get(0).getPorts().stream()
            .map(port -> port.getPort().getIntVal())
            .toList();
  }

  @Test
  void aRecordForAWorkloadNotCreatedYetWaitsForItThenApplies() throws Exception {
    publish(snapshot("late", List.of("web")));
    // Read and waiting: the writer has consumed the record but holds it (no commit, no proposal).
    await()
        .atMost(WAIT)
        .until(() -> writerMeter("network.enforcer.writer.proposals.awaiting.workload") >= 1);
    assertThat(proposal("deployment-late-ingress")).isNull();

    cluster.admin().resource(Fixtures.deployment("late")).create();

    await().atMost(WAIT).until(() -> ready(proposal("deployment-late-ingress")).isPresent());
    WorkloadNetworkPolicyProposal p = proposal("deployment-late-ingress");
    assertThat(peers(p)).containsExactly("web");
    assertThat(p.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo("late"));
  }

  @Test
  void aCronJobProposalIsOwnedByTheCronJobAndCarriesConvergedNextToReady() {
    CronJob backup =
        cluster
            .admin()
            .resource(
                new CronJobBuilder()
                    .withNewMetadata()
                    .withName("backup")
                    .withNamespace(NS)
                    .endMetadata()
                    .withNewSpec()
                    .withSchedule("0 2 * * *")
                    .withNewJobTemplate()
                    .withNewSpec()
                    .withNewTemplate()
                    .withNewMetadata()
                    .withLabels(Map.of("app", "backup"))
                    .endMetadata()
                    .withNewSpec()
                    .withRestartPolicy("OnFailure")
                    .addNewContainer()
                    .withName("b")
                    .withImage("b")
                    .endContainer()
                    .endSpec()
                    .endTemplate()
                    .endSpec()
                    .endJobTemplate()
                    .endSpec()
                    .build())
            .create();
    ProposalSnapshot learned =
        cronJobSnapshot(
            new Convergence(
                true,
                Instant.parse("2026-01-08T00:05:00Z"),
                "QuietPeriodPassed",
                "no new peer or port since 2026-01-01T00:05:00Z"));
    // The CronJob was created just now: a record read before the writer's informer has it waits for
    // it.
    publish(learned);
    await()
        .atMost(WAIT)
        .until(
            () ->
                converged(proposal("cronjob-backup-ingress")).isPresent()
                    && ready(proposal("cronjob-backup-ingress")).isPresent());

    WorkloadNetworkPolicyProposal p = proposal("cronjob-backup-ingress");
    assertThat(p.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getApiVersion()).isEqualTo("batch/v1");
              assertThat(o.getKind()).isEqualTo("CronJob");
              assertThat(o.getName()).isEqualTo("backup");
              assertThat(o.getUid()).isEqualTo(backup.getMetadata().getUid());
              assertThat(o.getController()).isTrue();
              assertThat(o.getBlockOwnerDeletion()).isTrue();
            });
    assertThat(p.getStatus().getConditions())
        .extracting(Condition::getType)
        .containsExactly("Ready", "Converged");
    assertThat(ready(p)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(converged(p))
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-01-08T00:05:00Z");
              assertThat(c.getReason()).isEqualTo("QuietPeriodPassed");
              assertThat(c.getObservedGeneration()).isEqualTo(p.getMetadata().getGeneration());
            });
    assertThat(p.getStatus().getObservedGeneration()).isEqualTo(p.getMetadata().getGeneration());

    // A new peer resets convergence: the next record says so; Ready stays as it was.
    publish(
        cronJobSnapshot(
            new Convergence(
                false,
                Instant.parse("2026-01-09T00:00:00Z"),
                "NewPeerOrPort",
                "a new peer or port appeared at 2026-01-09T00:00:00Z")));
    await()
        .atMost(WAIT)
        .until(
            () ->
                converged(proposal("cronjob-backup-ingress"))
                    .filter(c -> "False".equals(c.getStatus()))
                    .isPresent());
    WorkloadNetworkPolicyProposal reset = proposal("cronjob-backup-ingress");
    assertThat(converged(reset))
        .hasValueSatisfying(
            c -> {
              assertThat(c.getReason()).isEqualTo("NewPeerOrPort");
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-01-09T00:00:00Z");
            });
    assertThat(ready(reset)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(reset.getStatus().getConditions()).hasSize(2);
  }

  private static ProposalSnapshot cronJobSnapshot(Convergence convergence) {
    WorkloadNetworkPolicyProposalSpec spec = Fixtures.proposalSpec("backup", "web");
    spec.setTargetRef(new TargetRef(WorkloadKind.CronJob, "backup"));
    return new ProposalSnapshot(
        "cronjob-backup-ingress",
        NS,
        spec,
        List.of(),
        Instant.parse("2026-01-01T00:05:00Z"),
        convergence);
  }

  static Optional<Condition> converged(WorkloadNetworkPolicyProposal p) {
    if (p == null || p.getStatus() == null || p.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> "Converged".equals(c.getType()))
        .findFirst();
  }

  private static String annotation(String proposal, String name) {
    var annotations = proposal(proposal).getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(name);
  }

  @Test
  void aProposalAppliedFromGitGetsTheOwnerReferenceToItsTarget() {
    WorkloadNetworkPolicyProposal fromGit = new WorkloadNetworkPolicyProposal();
    fromGit.setMetadata(
        new ObjectMetaBuilder().withName("deployment-front-ingress").withNamespace(NS).build());
    fromGit.setSpec(Fixtures.proposalSpec("front", "web"));
    cluster.admin().resource(fromGit).create();

    String uid =
        cluster
            .admin()
            .apps()
            .deployments()
            .inNamespace(NS)
            .withName("front")
            .get()
            .getMetadata()
            .getUid();
    await()
        .atMost(WAIT)
        .until(
            () -> {
              var refs = proposal("deployment-front-ingress").getMetadata().getOwnerReferences();
              return refs != null && refs.size() == 1 && uid.equals(refs.get(0).getUid());
            });
    WorkloadNetworkPolicyProposal repaired = proposal("deployment-front-ingress");
    assertThat(repaired.getMetadata().getOwnerReferences().get(0).getController()).isTrue();
    assertThat(repaired.getMetadata().getFinalizers())
        .as("adopted: a person's delete of it now waits for the reset")
        .containsExactly(LearningResetFinalizer.NAME);
    assertThat(repaired.getSpec())
        .as("the person's spec is kept")
        .isEqualTo(Fixtures.proposalSpec("front", "web"));
    await()
        .atMost(WAIT)
        .until(
            () ->
                ready(proposal("deployment-front-ingress"))
                    .filter(c -> "True".equals(c.getStatus()))
                    .isPresent());
  }

  @Test
  void promotionOntoANameThatAnotherWorkloadsPolicyHoldsKeepsTheProposalAndSaysSo() {
    // A hand-made policy for batch that happens to carry the name web's proposal will have.
    WorkloadNetworkPolicy squatter = Fixtures.wnp("batch", "api", Mode.monitor);
    squatter.getMetadata().setName("deployment-web-ingress");
    cluster.admin().resource(squatter).create();
    publish(snapshot("web", List.of("api")));
    await().atMost(WAIT).until(() -> ready(proposal("deployment-web-ingress")).isPresent());

    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () ->
                proposals()
                        .withName("deployment-web-ingress")
                        .edit(
                            p -> {
                              p.getMetadata().getLabels().put(Labels.PROMOTE, "protect");
                              return p;
                            })
                    != null);
    await()
        .atMost(WAIT)
        .until(
            () ->
                ready(proposal("deployment-web-ingress"))
                    .filter(c -> ProposalConditions.REASON_NAME_CLASH.equals(c.getReason()))
                    .isPresent());
    Condition clash = ready(proposal("deployment-web-ingress")).orElseThrow();
    assertThat(clash.getStatus()).isEqualTo("False");
    assertThat(clash.getMessage()).contains("batch");
    assertThat(proposal("deployment-web-ingress").getSpec())
        .as("the allow-list is kept")
        .isEqualTo(snapshot("web", List.of("api")).spec());
    WorkloadNetworkPolicy untouched =
        cluster
            .admin()
            .resources(WorkloadNetworkPolicy.class)
            .inNamespace(NS)
            .withName("deployment-web-ingress")
            .get();
    assertThat(untouched.getSpec().getTargetRef().getName()).isEqualTo("batch");
    await()
        .atMost(WAIT)
        .until(
            () ->
                events("deployment-web-ingress").stream()
                    .anyMatch(e -> ProposalConditions.REASON_NAME_CLASH.equals(e.getReason())));
  }

  @Test
  void aProposalTheApiServerRefusesIsParkedAndReportedAndTheNextOneIsApplied() {
    // Owned by another workload (made by hand): the writer's controller reference to gamma would
    // make
    // two controllers, which the API server refuses as invalid. Retrying cannot help.
    WorkloadNetworkPolicyProposal foreign = new WorkloadNetworkPolicyProposal();
    String otherUid =
        cluster
            .admin()
            .apps()
            .deployments()
            .inNamespace(NS)
            .withName("other")
            .get()
            .getMetadata()
            .getUid();
    foreign.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-gamma-ingress")
            .withNamespace(NS)
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("apps/v1")
                    .withKind("Deployment")
                    .withName("other")
                    .withUid(otherUid)
                    .withController(true)
                    .build())
            .build());
    foreign.setSpec(Fixtures.proposalSpec("gamma", "web"));
    cluster.admin().resource(foreign).create();

    publish(snapshot("gamma", List.of("web", "api")));
    publish(snapshot("delta", List.of("web")));

    await().atMost(WAIT).until(() -> proposal("deployment-delta-ingress") != null);
    await()
        .atMost(WAIT)
        .until(
            () ->
                ready(proposal("deployment-gamma-ingress"))
                    .filter(c -> ProposalConditions.REASON_INVALID.equals(c.getReason()))
                    .isPresent());
    assertThat(ready(proposal("deployment-gamma-ingress")).orElseThrow().getMessage())
        .contains("ownerReferences");
    String gamma = snapshot("gamma", List.of("web", "api")).target().key();
    await().atMost(WAIT).until(() -> parked(gamma).size() == 1);
    var parked = parked(gamma).get(0);
    assertThat(DeadLetterHeaders.get(parked.headers(), DeadLetterHeaders.REASON))
        .contains("Invalid");
    assertThat(events("deployment-gamma-ingress"))
        .as("one Event, not one per retry")
        .filteredOn(e -> ProposalConditions.REASON_INVALID.equals(e.getReason()))
        .hasSize(1);
    assertThat(proposal("deployment-gamma-ingress").getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo("other"));
    await()
        .atMost(WAIT)
        .until(
            () ->
                KafkaTopics.committed(
                        broker.bootstrapServers(),
                        PREFIX + "writer-proposals",
                        TOPICS.proposals().name())
                    == KafkaTopics.readAll(broker.bootstrapServers(), TOPICS.proposals().name())
                        .size());
  }

  @Test
  void whetherADeleteWasAPersonsIsReadFromTheCluster() throws Exception {
    for (String target : List.of("kappa", "lambda", "omega")) {
      publish(snapshot(target, List.of("web")));
    }
    for (String target : List.of("kappa", "lambda", "omega")) {
      await()
          .atMost(WAIT)
          .until(() -> ready(proposal("deployment-" + target + "-ingress")).isPresent());
    }
    // kappa: promoted (the writer deletes the proposal); lambda: reset by the processor (a
    // tombstone);
    // omega: deleted by a person. One after the other, so the single proposal worker sees the
    // deletes
    // in this order. Only omega's learning starts over.
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () ->
                proposals()
                        .withName("deployment-kappa-ingress")
                        .edit(
                            p -> {
                              p.getMetadata().getLabels().put(Labels.PROMOTE, "monitor");
                              return p;
                            })
                    != null);
    await().atMost(WAIT).until(() -> proposal("deployment-kappa-ingress") == null);
    KafkaTopics.produceRaw(
        broker.bootstrapServers(),
        TOPICS.proposals().name(),
        snapshot("lambda", List.of("web")).target().key(),
        null);
    await().atMost(WAIT).until(() -> proposal("deployment-lambda-ingress") == null);
    proposals().withName("deployment-omega-ingress").delete();
    await("the reset sent, the finalizer removed")
        .atMost(WAIT)
        .until(() -> proposal("deployment-omega-ingress") == null);

    String omega = snapshot("omega", List.of("web")).target().key();
    await()
        .atMost(WAIT)
        .until(
            () ->
                KafkaTopics.readAll(broker.bootstrapServers(), TOPICS.control().name()).stream()
                    .anyMatch(r -> omega.equals(r.key())));
    assertThat(KafkaTopics.readAll(broker.bootstrapServers(), TOPICS.control().name()))
        .as("the promotion's and the reset's deletes were the writer's own")
        .extracting(r -> r.key())
        .containsExactly(omega);
  }

  @Test
  void aTargetWithThousandsOfPeersGetsItsProposalAndOneTooLargeToStoreIsReportedOnIt() {
    // 2,000 peers: about 330 KB of learned spec, over the 256 KiB Kubernetes allows for all of an
    // object's annotations when the learned spec was kept there as plain JSON.
    ProposalSnapshot thousands = withEvidence(snapshot("dns", peerNames(2_000)));
    publish(thousands);
    await()
        .atMost(WAIT)
        .until(
            () ->
                ready(proposal("deployment-dns-ingress"))
                    .filter(c -> "True".equals(c.getStatus()))
                    .isPresent());
    WorkloadNetworkPolicyProposal applied = proposal("deployment-dns-ingress");
    assertThat(applied.getSpec()).isEqualTo(thousands.spec());
    assertThat(applied.getStatus().getEvidence()).hasSize(2_000);
    String annotation = applied.getMetadata().getAnnotations().get(ProposalReconciler.LEARNED_SPEC);
    assertThat(annotation).startsWith(LearnedSpecAnnotation.GZIP_PREFIX).hasSizeLessThan(64 * 1024);
    assertThat(LearnedSpecAnnotation.decode(annotation)).isEqualTo(thousands.spec());

    // 10,000 peers: the spec alone is over etcd's 1.5 MiB. The proposal keeps what it had and says
    // why.
    ProposalSnapshot tooMany = snapshot("dns", peerNames(10_000));
    publish(tooMany);
    await()
        .atMost(WAIT)
        .until(
            () ->
                ready(proposal("deployment-dns-ingress"))
                    .filter(c -> ProposalConditions.REASON_TOO_LARGE.equals(c.getReason()))
                    .isPresent());
    WorkloadNetworkPolicyProposal refused = proposal("deployment-dns-ingress");
    assertThat(ready(refused).orElseThrow().getStatus()).isEqualTo("False");
    // Updated, the object keeps the evidence it holds: over 2 MiB, kube-apiserver's own limit to
    // etcd refuses it.
    assertThat(ready(refused).orElseThrow().getMessage())
        .contains("1.5 MiB", "WorkloadNetworkPolicy", "trying to send message larger than max");
    assertThat(refused.getSpec()).isEqualTo(thousands.spec());
    await().atMost(WAIT).until(() -> parked(tooMany.target().key()).size() == 1);
    assertThat(
            DeadLetterHeaders.get(
                parked(tooMany.target().key()).get(0).headers(), DeadLetterHeaders.REASON))
        .contains(ProposalConditions.REASON_TOO_LARGE);
    assertThat(events("deployment-dns-ingress"))
        .as("one Event, not one per retry")
        .filteredOn(e -> ProposalConditions.REASON_TOO_LARGE.equals(e.getReason()))
        .hasSize(1);

    // The target keeps learning: its next, larger record is not tried again, nor parked again.
    publish(snapshot("dns", peerNames(10_001)));
    await()
        .atMost(WAIT)
        .until(
            () ->
                KafkaTopics.committed(
                        broker.bootstrapServers(),
                        PREFIX + "writer-proposals",
                        TOPICS.proposals().name())
                    == KafkaTopics.readAll(broker.bootstrapServers(), TOPICS.proposals().name())
                        .size());
    assertThat(
            METERS
                .counter("network.enforcer.writer.proposals", "outcome", "skipped_too_large")
                .count())
        .isEqualTo(1.0);
    assertThat(parked(tooMany.target().key())).hasSize(1);
    assertThat(events("deployment-dns-ingress"))
        .filteredOn(e -> ProposalConditions.REASON_TOO_LARGE.equals(e.getReason()))
        .hasSize(1);
    assertThat(proposal("deployment-dns-ingress").getSpec()).isEqualTo(thousands.spec());
  }

  @Test
  void aProposalTooLargeToCreateIsReportedOnItsWorkloadAndHoldsUpNoOther() {
    ProposalSnapshot tooMany = snapshot("scraper", peerNames(10_000));
    publish(tooMany);
    publish(snapshot("sigma", List.of("web")));
    await()
        .atMost(WAIT)
        .until(
            () ->
                events("scraper").stream()
                    .anyMatch(e -> ProposalConditions.REASON_TOO_LARGE.equals(e.getReason())));
    Event onWorkload =
        events("scraper").stream()
            .filter(e -> ProposalConditions.REASON_TOO_LARGE.equals(e.getReason()))
            .findFirst()
            .orElseThrow();
    assertThat(onWorkload.getInvolvedObject().getKind()).isEqualTo("Deployment");
    assertThat(onWorkload.getMessage())
        .startsWith("proposal deployment-scraper-ingress: ")
        .contains("1.5 MiB", "etcdserver: request is too large");
    assertThat(proposal("deployment-scraper-ingress")).isNull();
    await().atMost(WAIT).until(() -> parked(tooMany.target().key()).size() == 1);
    await().atMost(WAIT).until(() -> ready(proposal("deployment-sigma-ingress")).isPresent());
  }

  static List<String> peerNames(int count) {
    List<String> names = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      names.add(String.format("peer-%05d", i));
    }
    return names;
  }

  /**
   * The snapshot with evidence for every rule, as the processor renders it (about 300 bytes a
   * rule).
   */
  static ProposalSnapshot withEvidence(ProposalSnapshot s) {
    List<RuleEvidence> evidence = new ArrayList<>();
    List<NetworkPolicyIngressRule> rules = s.spec().getKubernetes().getIngress();
    for (int i = 0; i < rules.size(); i++) {
      String peer = rules.get(i).getFrom().get(0).getPodSelector().getMatchLabels().get("app");
      evidence.add(
          new RuleEvidence(
              i,
              NS + "/Deployment/" + peer,
              List.of(
                  new PortEvidence(
                      "TCP",
                      "8080",
                      "2026-01-01T00:00:00.123456789Z",
                      "2026-01-01T00:05:00.987654321Z",
                      42))));
    }
    return new ProposalSnapshot(s.name(), s.namespace(), s.spec(), evidence, s.updatedAt());
  }

  static List<ConsumerRecord<String, byte[]>> parked(String key) {
    return KafkaTopics.readAll(broker.bootstrapServers(), TOPICS.deadLetter().name()).stream()
        .filter(r -> key.equals(r.key()))
        .toList();
  }

  /**
   * A learned snapshot of {@code target}'s ingress with one rule per peer, as the processor renders
   * it.
   */
  static ProposalSnapshot snapshot(String target, List<String> peers) {
    return new ProposalSnapshot(
        "deployment-" + target + "-ingress",
        NS,
        Fixtures.proposalSpec(target, peers),
        List.of(),
        Instant.parse("2026-01-01T00:05:00Z"));
  }

  static void publish(ProposalSnapshot s) {
    try {
      KafkaTopics.produce(broker.bootstrapServers(), TOPICS.proposals(), s.target().key(), s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static NonNamespaceOperation<
          WorkloadNetworkPolicyProposal,
          KubernetesResourceList<WorkloadNetworkPolicyProposal>,
          Resource<WorkloadNetworkPolicyProposal>>
      proposals() {
    return cluster.admin().resources(WorkloadNetworkPolicyProposal.class).inNamespace(NS);
  }

  static WorkloadNetworkPolicyProposal proposal(String name) {
    return proposals().withName(name).get();
  }

  static Optional<Condition> ready(WorkloadNetworkPolicyProposal p) {
    if (p == null || p.getStatus() == null || p.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()))
        .findFirst();
  }

  static List<String> peers(WorkloadNetworkPolicyProposal p) {
    List<String> out = new ArrayList<>();
    for (NetworkPolicyIngressRule r : p.getSpec().getKubernetes().getIngress()) {
      for (NetworkPolicyPeer peer : r.getFrom()) {
        out.add(peer.getPodSelector().getMatchLabels().get("app"));
      }
    }
    return out;
  }

  static List<Event> events(String involvedName) {
    return cluster.admin().v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> involvedName.equals(e.getInvolvedObject().getName()))
        .toList();
  }
}
