package io.kubewarden.networkenforcer.writer.promotion;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.writer.CacheOnMock;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.MockCluster;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.policies.OwnDeletes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PromoterTest {
  MockCluster cluster;
  KubernetesClient client;
  CacheOnMock cache;
  MockClusterWriter writer;
  OwnDeletes ownDeletes;
  SimpleMeterRegistry meters;
  Promoter promoter;

  @BeforeEach
  void setUp() throws Exception {
    cluster = MockCluster.start();
    client = cluster.client();
    cache = new CacheOnMock(client);
    writer = new MockClusterWriter(client);
    ownDeletes = new OwnDeletes(Duration.ofMinutes(5), Clock.systemUTC());
    meters = new SimpleMeterRegistry();
    promoter = new Promoter(cache.cache, writer, ownDeletes, meters);
  }

  @AfterEach
  void tearDown() {
    cache.close();
    cluster.close();
  }

  WorkloadNetworkPolicy policy() {
    return client.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName("deployment-api-ingress").get();
  }

  WorkloadNetworkPolicyProposal proposal() {
    return client.resources(WorkloadNetworkPolicyProposal.class).inNamespace(NS).withName("deployment-api-ingress")
        .get();
  }

  @Test
  void thePromoteLabelCreatesThePolicyThenDeletesTheProposal() {
    WorkloadNetworkPolicyProposal p = client.resource(Fixtures.wnpp("api", "web", Map.of(Labels.PROMOTE, "protect")))
        .create();
    promoter.reconcile(p);

    WorkloadNetworkPolicy wnp = policy();
    assertThat(wnp.getSpec().getMode()).isEqualTo(Mode.protect);
    assertThat(wnp.getSpec().sameAllowListAs(p.getSpec())).isTrue();
    assertThat(wnp.getMetadata().getLabels()).containsEntry(Labels.PROMOTED_FROM, "deployment-api-ingress");
    assertThat(proposal()).isNull();
    assertThat(ownDeletes.consume(NS, "deployment-api-ingress")).as("our delete, not a person's").isTrue();
    assertThat(writer.calls()).extracting(MockClusterWriter.Call::operation).containsExactly("create", "delete");
  }

  @Test
  void monitorIsTakenFromTheLabelToo() {
    WorkloadNetworkPolicyProposal p = client.resource(Fixtures.wnpp("api", "web", Map.of(Labels.PROMOTE, "monitor")))
        .create();
    promoter.reconcile(p);
    assertThat(policy().getSpec().getMode()).isEqualTo(Mode.monitor);
  }

  @Test
  void anInvalidLabelValueIsIgnored() {
    WorkloadNetworkPolicyProposal p = client.resource(Fixtures.wnpp("api", "web", Map.of(Labels.PROMOTE, "enforce")))
        .create();
    promoter.reconcile(p);
    assertThat(policy()).isNull();
    assertThat(proposal()).isNotNull();
    assertThat(meters.counter("network.enforcer.writer.promotions.invalid.label").count()).isEqualTo(1);
  }

  @Test
  void aPolicyTheCacheDoesNotKnowYetIsNeverOverwritten() {
    WorkloadNetworkPolicy existing = Fixtures.wnp("api", "db", Mode.monitor);
    existing.getMetadata().setLabels(Map.of("owner", "a-person"));
    client.resource(existing).create();
    WorkloadNetworkPolicyProposal p = client.resource(Fixtures.wnpp("api", "web", Map.of(Labels.PROMOTE, "protect")))
        .create();
    // Promote straight away, as if the policy informer had not delivered the policy yet.
    var notStarted = client.resources(WorkloadNetworkPolicy.class).inAnyNamespace().runnableInformer(0);
    notStarted.addIndexers(io.kubewarden.networkenforcer.writer.ClusterCache.targetIndex());
    new Promoter(new io.kubewarden.networkenforcer.writer.ClusterCache(notStarted,
        client.resources(WorkloadNetworkPolicyProposal.class).inAnyNamespace().runnableInformer(0)), writer,
        ownDeletes, meters).reconcile(p);

    assertThat(policy().getSpec().getMode()).isEqualTo(Mode.monitor);
    assertThat(policy().getSpec().getKubernetes()).isEqualTo(Fixtures.ingressFrom("api", "db"));
    assertThat(proposal()).as("the proposal was a leftover").isNull();
  }

  @Test
  void aProposalWhoseTargetHasAPolicyIsALeftoverAndDeleted() {
    client.resource(Fixtures.wnp("api", "web", Mode.monitor)).create();
    await().atMost(Duration.ofSeconds(10)).until(() -> !cache.cache.allPolicies().isEmpty());
    WorkloadNetworkPolicyProposal p = client.resource(Fixtures.wnpp("api", "db", Map.of())).create();

    promoter.reconcile(p);
    assertThat(proposal()).isNull();
    assertThat(policy().getSpec().getKubernetes()).as("the policy is untouched")
        .isEqualTo(Fixtures.ingressFrom("api", "web"));
    assertThat(meters.counter("network.enforcer.writer.proposals.leftovers.deleted").count()).isEqualTo(1);
  }
}
