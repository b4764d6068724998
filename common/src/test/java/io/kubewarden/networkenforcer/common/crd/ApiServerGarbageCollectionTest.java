package io.kubewarden.networkenforcer.common.crd;

import static io.kubewarden.networkenforcer.common.crd.TestManifests.KUBERNETES_SPEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.crd.TestManifests.Kind;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ownership as the product relies on it, with kube-controller-manager's garbage collector: a
 * proposal owned by a workload goes away with the workload, a NetworkPolicy owned by a
 * WorkloadNetworkPolicy goes away with the policy, and objects without that owner stay; the chart's
 * admission policies let the collector orphan a proposal.
 */
class ApiServerGarbageCollectionTest {

  private static final String NAMESPACE = "shop";
  private static final Duration COLLECTION = Duration.ofSeconds(90);

  private static KubeApiServer api;
  private static KubernetesClient client;

  @BeforeAll
  static void startControlPlane() {
    api = KubeApiServer.builder().start();
    client = api.client();
    ProjectCrds.install(client, Duration.ofSeconds(60));
    // After the CRDs: the garbage collector then watches our kinds from its first discovery.
    api.startControllerManager();
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
    // The chart's policies too: the ownerReferences policy must not stop the collector.
    ChartAdmission.install(client, NAMESPACE);
  }

  @AfterAll
  static void stopControlPlane() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  void deletingAWorkloadCollectsItsProposals() {
    Deployment web = createDeployment("web");
    Deployment other = createDeployment("other");
    GenericKubernetesResource owned = createProposal("deployment-web-ingress", ownerOf(web));
    GenericKubernetesResource ownedByOther =
        createProposal("deployment-other-ingress", ownerOf(other));
    GenericKubernetesResource unowned = createProposal("deployment-gone-ingress", null);

    client.apps().deployments().inNamespace(NAMESPACE).withName("web").delete();

    await("proposal of the deleted Deployment collected")
        .atMost(COLLECTION)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> proposal(owned) == null);
    assertThat(proposal(ownedByOther)).isNotNull();
    assertThat(proposal(unowned)).isNotNull();
    // The collector ran under its own service account, as in a real cluster.
    assertThat(
            client
                .serviceAccounts()
                .inNamespace("kube-system")
                .withName("generic-garbage-collector")
                .get())
        .isNotNull();
  }

  @Test
  void orphaningAWorkloadKeepsItsProposalAndTheCollectorMayDropTheReference() {
    Deployment batch = createDeployment("batch");
    GenericKubernetesResource owned = createProposal("deployment-batch-ingress", ownerOf(batch));

    client
        .apps()
        .deployments()
        .inNamespace(NAMESPACE)
        .withName("batch")
        .withPropagationPolicy(DeletionPropagation.ORPHAN)
        .delete();

    // The Deployment only goes once the collector has removed the reference from the proposal,
    // an UPDATE the chart's ownerReferences policy exempts for the collector.
    await("orphaned Deployment gone")
        .atMost(COLLECTION)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                client.apps().deployments().inNamespace(NAMESPACE).withName("batch").get() == null);
    GenericKubernetesResource orphan = proposal(owned);
    assertThat(orphan).isNotNull();
    assertThat(orphan.getMetadata().getOwnerReferences()).isNullOrEmpty();
  }

  @Test
  void deletingAPolicyCollectsItsNetworkPolicy() {
    GenericKubernetesResource policy =
        TestManifests.resources(client, Kind.WorkloadNetworkPolicy, NAMESPACE)
            .resource(
                TestManifests.object(
                    client,
                    Kind.WorkloadNetworkPolicy,
                    "deployment-api-ingress",
                    "",
                    KUBERNETES_SPEC + "mode: protect\n"))
            .create();
    createNetworkPolicy("deployment-api-ingress", ownerOf(policy));
    createNetworkPolicy("hand-made", null);

    TestManifests.resources(client, Kind.WorkloadNetworkPolicy, NAMESPACE)
        .withName("deployment-api-ingress")
        .delete();

    await("NetworkPolicy of the deleted policy collected")
        .atMost(COLLECTION)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> networkPolicy("deployment-api-ingress") == null);
    assertThat(networkPolicy("hand-made")).isNotNull();
  }

  private static Deployment createDeployment(String name) {
    Deployment deployment =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(NAMESPACE)
            .endMetadata()
            .withNewSpec()
            .withReplicas(1)
            .withNewSelector()
            .addToMatchLabels("app", name)
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", name)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("registry.invalid/" + name + ":1")
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build();
    return client.apps().deployments().inNamespace(NAMESPACE).resource(deployment).create();
  }

  private static GenericKubernetesResource createProposal(String name, OwnerReference owner) {
    GenericKubernetesResource proposal =
        TestManifests.object(client, Kind.WorkloadNetworkPolicyProposal, name, "", KUBERNETES_SPEC);
    if (owner != null) {
      proposal.getMetadata().setOwnerReferences(List.of(owner));
    }
    return TestManifests.resources(client, Kind.WorkloadNetworkPolicyProposal, NAMESPACE)
        .resource(proposal)
        .create();
  }

  private static GenericKubernetesResource proposal(GenericKubernetesResource created) {
    return TestManifests.resources(client, Kind.WorkloadNetworkPolicyProposal, NAMESPACE)
        .withName(created.getMetadata().getName())
        .get();
  }

  private static void createNetworkPolicy(String name, OwnerReference owner) {
    NetworkPolicy policy =
        new NetworkPolicyBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(NAMESPACE)
            .endMetadata()
            .withNewSpec()
            .withNewPodSelector()
            .addToMatchLabels("app", "api")
            .endPodSelector()
            .withPolicyTypes("Ingress")
            .endSpec()
            .build();
    if (owner != null) {
      policy.getMetadata().setOwnerReferences(List.of(owner));
    }
    client.network().v1().networkPolicies().inNamespace(NAMESPACE).resource(policy).create();
  }

  private static NetworkPolicy networkPolicy(String name) {
    return client.network().v1().networkPolicies().inNamespace(NAMESPACE).withName(name).get();
  }

  /** A controller reference, as the writer sets it. */
  private static OwnerReference ownerOf(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
