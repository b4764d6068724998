package io.kubewarden.networkenforcer.writer.proposals;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.time.Instant;
import java.util.Map;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.writer.CacheOnMock;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.MockCluster;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.policies.OwnDeletes;
import io.kubewarden.networkenforcer.writer.proposals.ProposalApplier.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProposalApplierTest {
  MockCluster cluster;
  KubernetesClient client;
  CacheOnMock cache;
  MockClusterWriter writer;
  OwnDeletes ownDeletes;
  SimpleMeterRegistry meters;
  ProposalApplier applier;

  @BeforeEach
  void setUp() throws Exception {
    cluster = MockCluster.start();
    client = cluster.client();
    cache = new CacheOnMock(client);
    writer = new MockClusterWriter(client);
    ownDeletes = new OwnDeletes(Duration.ofMinutes(5), Clock.systemUTC());
    meters = new SimpleMeterRegistry();
    applier = new ProposalApplier(client, writer, cache.cache, ownDeletes, meters);
  }

  @AfterEach
  void tearDown() {
    cache.close();
    cluster.close();
  }

  WorkloadNetworkPolicyProposal live() {
    return client.resources(WorkloadNetworkPolicyProposal.class).inNamespace(NS).withName("deployment-api-ingress")
        .get();
  }

  void awaitCached() {
    await().atMost(Duration.ofSeconds(10)).until(() -> cache.cache.proposal(NS, "deployment-api-ingress")
        .filter(p -> p.getStatus() != null && !p.getStatus().getEvidence().isEmpty()).isPresent());
  }

  @Test
  void aSnapshotBecomesAProposalOwnedByItsWorkloadWithEvidence() {
    Deployment api = client.resource(Fixtures.deployment("api")).create();
    ProposalSnapshot snapshot = Fixtures.proposal("api", "web");

    assertThat(applier.apply(snapshot.target().key(), snapshot)).isEqualTo(Outcome.APPLIED);

    WorkloadNetworkPolicyProposal p = live();
    assertThat(p.getSpec()).isEqualTo(snapshot.spec());
    assertThat(p.getStatus().getEvidence()).isEqualTo(snapshot.evidence());
    assertThat(p.getMetadata().getLabels()).containsEntry(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE);
    assertThat(p.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
      assertThat(o.getKind()).isEqualTo("Deployment");
      assertThat(o.getName()).isEqualTo("api");
      assertThat(o.getUid()).isEqualTo(api.getMetadata().getUid());
      assertThat(o.getController()).isTrue();
    });

    awaitCached();
    int writes = writer.calls().size();
    assertThat(applier.apply(snapshot.target().key(), snapshot)).isEqualTo(Outcome.UNCHANGED);
    assertThat(writer.calls()).as("the live proposal matches: nothing written").hasSize(writes);
  }

  @Test
  void aCronJobProposalIsOwnedByTheCronJobAndCarriesItsConvergedCondition() {
    CronJob backup = client.resource(new CronJobBuilder().withNewMetadata().withName("backup").withNamespace(NS)
        .endMetadata().withNewSpec().withSchedule("0 2 * * *").withNewJobTemplate().withNewSpec().withNewTemplate()
        .withNewMetadata().withLabels(Map.of("app", "backup")).endMetadata().withNewSpec().withRestartPolicy("OnFailure")
        .addNewContainer().withName("b").withImage("b").endContainer().endSpec().endTemplate().endSpec()
        .endJobTemplate().endSpec().build()).create();
    ProposalSnapshot deployment = Fixtures.proposal("backup", "web");
    WorkloadNetworkPolicyProposalSpec spec = deployment.spec();
    spec.setTargetRef(new TargetRef(WorkloadKind.CronJob, "backup"));
    Convergence converged = new Convergence(true, Instant.parse("2026-01-08T00:05:00Z"), "QuietPeriodPassed",
        "no new peer or port since 2026-01-01T00:05:00Z");
    ProposalSnapshot snapshot = new ProposalSnapshot("cronjob-backup-ingress", NS, spec, deployment.evidence(),
        deployment.updatedAt(), converged);

    assertThat(applier.apply(snapshot.target().key(), snapshot)).isEqualTo(Outcome.APPLIED);

    WorkloadNetworkPolicyProposal p = client.resources(WorkloadNetworkPolicyProposal.class).inNamespace(NS)
        .withName("cronjob-backup-ingress").get();
    assertThat(p.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
      assertThat(o.getApiVersion()).isEqualTo("batch/v1");
      assertThat(o.getKind()).isEqualTo("CronJob");
      assertThat(o.getName()).isEqualTo("backup");
      assertThat(o.getUid()).isEqualTo(backup.getMetadata().getUid());
    });
    assertThat(p.getStatus().getConditions()).singleElement().satisfies(c -> {
      assertThat(c.getType()).isEqualTo("Converged");
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getLastTransitionTime()).isEqualTo("2026-01-08T00:05:00Z");
      assertThat(c.getReason()).isEqualTo("QuietPeriodPassed");
    });
  }

  @Test
  void aTargetWithAPolicyIsSkipped() {
    client.resource(Fixtures.deployment("api")).create();
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    await().atMost(Duration.ofSeconds(10)).until(() -> !cache.cache.allPolicies().isEmpty());

    ProposalSnapshot snapshot = Fixtures.proposal("api", "web");
    assertThat(applier.apply(snapshot.target().key(), snapshot)).isEqualTo(Outcome.SKIPPED_POLICY_EXISTS);
    assertThat(live()).isNull();
    assertThat(writer.calls()).isEmpty();
  }

  @Test
  void aMissingWorkloadIsSkippedAndCounted() {
    ProposalSnapshot snapshot = Fixtures.proposal("api", "web");
    assertThat(applier.apply(snapshot.target().key(), snapshot)).isEqualTo(Outcome.SKIPPED_WORKLOAD_MISSING);
    assertThat(live()).isNull();
    assertThat(meters.counter("network.enforcer.writer.proposals", "outcome", "skipped_workload_missing").count())
        .isEqualTo(1);
  }

  @Test
  void aTombstoneDeletesTheProposalAsOurOwnDelete() {
    client.resource(Fixtures.deployment("api")).create();
    ProposalSnapshot snapshot = Fixtures.proposal("api", "web");
    applier.apply(snapshot.target().key(), snapshot);
    awaitCached();

    assertThat(applier.apply(snapshot.target().key(), null)).isEqualTo(Outcome.DELETED);
    assertThat(live()).isNull();
    assertThat(ownDeletes.consume(NS, "deployment-api-ingress")).isTrue();
  }

  @Test
  void aRecordThatCanNeverBeAppliedIsRejectedNotRetried() {
    ProposalSnapshot snapshot = Fixtures.proposal("api", "web");
    snapshot.spec().setTargetRef(null);
    assertThatThrownBy(() -> applier.apply("shop/Deployment/api/Ingress", snapshot))
        .isInstanceOf(InvalidProposalException.class).hasMessageContaining("targetRef");
    assertThatThrownBy(() -> applier.apply("not-a-target", null)).isInstanceOf(InvalidProposalException.class);
    assertThat(writer.calls()).isEmpty();
  }
}
