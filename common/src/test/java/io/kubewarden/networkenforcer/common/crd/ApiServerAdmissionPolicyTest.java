package io.kubewarden.networkenforcer.common.crd;

import static io.kubewarden.networkenforcer.common.crd.TestManifests.KUBERNETES_SPEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kubewarden.networkenforcer.common.crd.TestManifests.Kind;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The chart's two ValidatingAdmissionPolicies (rendered with helm) on a real kube-apiserver: a
 * promote label must be monitor or protect, and a proposal's ownerReferences cannot change; good
 * cases are admitted.
 */
class ApiServerAdmissionPolicyTest {

  private static final String NAMESPACE = "default";
  private static final String PROMOTE_MESSAGE = ChartAdmission.PROMOTE_MESSAGE;
  private static final Kind WNPP = Kind.WorkloadNetworkPolicyProposal;

  private static KubeApiServer api;
  private static KubernetesClient client;

  @BeforeAll
  static void startApiServerWithPolicies() {
    api = KubeApiServer.builder().start();
    client = api.client();
    ProjectCrds.install(client, Duration.ofSeconds(60));
    ChartAdmission.install(client, NAMESPACE);
  }

  @AfterAll
  static void stopApiServer() {
    if (api != null) {
      api.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"yes", "Monitor", "enforce", ""})
  void badPromoteLabelIsRejectedOnCreate(String value) {
    String name = TestManifests.uniqueName("bad-promote");

    assertThatThrownBy(() -> createProposal(name, Map.of(Labels.PROMOTE, value), null))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining(PROMOTE_MESSAGE);
    assertThat(proposals().withName(name).get()).isNull();
  }

  @Test
  void badPromoteLabelIsRejectedOnUpdate() {
    String name = TestManifests.uniqueName("bad-promote-update");
    createProposal(name, Map.of(), null);

    assertThatThrownBy(
            () -> proposals().withName(name).edit(p -> withLabel(p, Labels.PROMOTE, "now")))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining(PROMOTE_MESSAGE);
    assertThat(proposals().withName(name).get().getMetadata().getLabels())
        .doesNotContainKey(Labels.PROMOTE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"monitor", "protect"})
  void goodPromoteLabelIsAdmittedOnCreateAndUpdate(String value) {
    String name = TestManifests.uniqueName("good-promote");
    createProposal(name, Map.of("team", "shop"), null);

    GenericKubernetesResource promoted =
        proposals().withName(name).edit(p -> withLabel(p, Labels.PROMOTE, value));
    GenericKubernetesResource created =
        createProposal(name + "-new", Map.of(Labels.PROMOTE, value), null);

    assertThat(promoted.getMetadata().getLabels()).containsEntry(Labels.PROMOTE, value);
    assertThat(created.getMetadata().getLabels()).containsEntry(Labels.PROMOTE, value);
  }

  @Test
  void promoteLabelOnAPolicyIsNotChecked() {
    String name = TestManifests.uniqueName("policy-label");

    GenericKubernetesResource policy =
        TestManifests.resources(client, Kind.WorkloadNetworkPolicy, NAMESPACE)
            .resource(
                TestManifests.object(
                    client,
                    Kind.WorkloadNetworkPolicy,
                    name,
                    "labels: {" + Labels.PROMOTE + ": anything}",
                    KUBERNETES_SPEC))
            .create();

    assertThat(policy.getMetadata().getUid()).isNotBlank();
  }

  @Test
  void changingOwnerReferencesIsRejected() {
    String name = TestManifests.uniqueName("owned");
    OwnerReference owner = deploymentOwner("web");
    createProposal(name, Map.of(), owner);

    assertOwnerChangeRejected(name, p -> withOwners(p, List.of(deploymentOwner("web"))));
    assertOwnerChangeRejected(name, p -> withOwners(p, List.of()));
    OwnerReference extra =
        new OwnerReferenceBuilder(deploymentOwner("other")).withController(false).build();
    assertOwnerChangeRejected(name, p -> withOwners(p, List.of(owner, extra)));
    assertThat(proposals().withName(name).get().getMetadata().getOwnerReferences())
        .containsExactly(owner);
  }

  @Test
  void anUnownedProposalMayOnlyGainTheControllerReferenceToItsOwnTarget() {
    String name = TestManifests.uniqueName("unowned");
    createProposal(name, Map.of(), null);

    // Not its target, not a controller, a wrong kind, two at once: refused.
    assertOwnerChangeRejected(name, p -> withOwners(p, List.of(deploymentOwner("other"))));
    assertOwnerChangeRejected(
        name,
        p ->
            withOwners(
                p,
                List.of(
                    new OwnerReferenceBuilder(deploymentOwner("web"))
                        .withController(false)
                        .build())));
    assertOwnerChangeRejected(
        name,
        p ->
            withOwners(
                p,
                List.of(
                    new OwnerReferenceBuilder(deploymentOwner("web"))
                        .withKind("StatefulSet")
                        .build())));
    assertOwnerChangeRejected(
        name,
        p ->
            withOwners(
                p,
                List.of(
                    deploymentOwner("web"),
                    new OwnerReferenceBuilder(deploymentOwner("other"))
                        .withController(false)
                        .build())));
    assertThat(proposals().withName(name).get().getMetadata().getOwnerReferences()).isNullOrEmpty();

    // The repair the writer makes (spec.targetRef is Deployment web): admitted, once.
    OwnerReference repair = deploymentOwner("web");
    GenericKubernetesResource repaired =
        proposals().withName(name).edit(p -> withOwners(p, List.of(repair)));
    assertThat(repaired.getMetadata().getOwnerReferences()).containsExactly(repair);
    assertOwnerChangeRejected(name, p -> withOwners(p, List.of(deploymentOwner("web"))));
  }

  @Test
  void updateKeepingOwnerReferencesIsAdmitted() {
    String name = TestManifests.uniqueName("kept-owner");
    OwnerReference owner = deploymentOwner("web");
    createProposal(name, Map.of(), owner);

    GenericKubernetesResource updated =
        proposals().withName(name).edit(p -> withLabel(p, Labels.PROMOTE, "monitor"));

    assertThat(updated.getMetadata().getOwnerReferences()).containsExactly(owner);
    assertThat(updated.getMetadata().getLabels()).containsEntry(Labels.PROMOTE, "monitor");
  }

  private static void assertOwnerChangeRejected(
      String name, Function<GenericKubernetesResource, GenericKubernetesResource> change) {
    assertThatThrownBy(() -> proposals().withName(name).edit(change::apply))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("ValidatingAdmissionPolicy")
        .satisfies(
            e ->
                assertThat(ChartAdmission.deniedForOwnerReferences((KubernetesClientException) e))
                    .isTrue());
  }

  private static GenericKubernetesResource createProposal(
      String name, Map<String, String> labels, OwnerReference owner) {
    return proposals().resource(ChartAdmission.proposal(client, name, labels, owner)).create();
  }

  private static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      proposals() {
    return TestManifests.resources(client, WNPP, NAMESPACE);
  }

  private static GenericKubernetesResource withLabel(
      GenericKubernetesResource resource, String key, String value) {
    Map<String, String> labels = new HashMap<>();
    if (resource.getMetadata().getLabels() != null) {
      labels.putAll(resource.getMetadata().getLabels());
    }
    labels.put(key, value);
    resource.getMetadata().setLabels(labels);
    return resource;
  }

  private static GenericKubernetesResource withOwners(
      GenericKubernetesResource resource, List<OwnerReference> owners) {
    resource.getMetadata().setOwnerReferences(owners);
    return resource;
  }

  private static OwnerReference deploymentOwner(String name) {
    return ChartAdmission.deploymentOwner(name);
  }
}
