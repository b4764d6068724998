package io.kubewarden.networkenforcer.common.crd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.TestManifests.Kind;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.testing.ChartTemplates;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Installs the chart's two ValidatingAdmissionPolicies and waits until the API server enforces
 * them.
 */
final class ChartAdmission {

  static final String PROMOTE_MESSAGE =
      "networkenforcer.kubewarden.io/promote must be \"monitor\" or \"protect\"";

  /** The text of policy 2 is not part of the contract: any policy denial naming ownerReferences. */
  static final String OWNER_MESSAGE = "ownerReferences";

  static final String POLICY_DENIAL = "denied request";
  private static final Duration ACTIVATION = Duration.ofSeconds(60);

  private ChartAdmission() {}

  static void install(KubernetesClient client, String probeNamespace) {
    List<HasMetadata> objects = ChartTemplates.admissionPolicies(client);
    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .containsExactlyInAnyOrder(
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding");
    objects.forEach(object -> client.resource(object).create());
    awaitEnforced(client, probeNamespace);
  }

  static boolean deniedForOwnerReferences(KubernetesClientException e) {
    return e.getMessage().contains(POLICY_DENIAL) && e.getMessage().contains(OWNER_MESSAGE);
  }

  /** A controller reference to a Deployment that need not exist. */
  static OwnerReference deploymentOwner(String name) {
    return new OwnerReferenceBuilder()
        .withApiVersion("apps/v1")
        .withKind("Deployment")
        .withName(name)
        .withUid(UUID.randomUUID().toString())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /** A policy takes effect shortly after it is created: probe each until it denies. */
  private static void awaitEnforced(KubernetesClient client, String namespace) {
    var proposals = TestManifests.resources(client, Kind.WorkloadNetworkPolicyProposal, namespace);
    await("promote label policy enforced")
        .atMost(ACTIVATION)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              String probe = TestManifests.uniqueName("probe-promote");
              try {
                proposals
                    .resource(proposal(client, probe, Map.of(Labels.PROMOTE, "probe"), null))
                    .create();
              } catch (KubernetesClientException denied) {
                return denied.getMessage().contains(PROMOTE_MESSAGE);
              }
              proposals.withName(probe).delete();
              return false;
            });
    await("ownerReferences policy enforced")
        .atMost(ACTIVATION)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              String probe = TestManifests.uniqueName("probe-owner");
              proposals
                  .resource(proposal(client, probe, Map.of(), deploymentOwner("probe")))
                  .create();
              try {
                proposals
                    .withName(probe)
                    .edit(
                        p -> {
                          p.getMetadata().setOwnerReferences(List.of());
                          return p;
                        });
              } catch (KubernetesClientException denied) {
                proposals.withName(probe).delete();
                return deniedForOwnerReferences(denied);
              }
              proposals.withName(probe).delete();
              return false;
            });
  }

  static GenericKubernetesResource proposal(
      KubernetesClient client, String name, Map<String, String> labels, OwnerReference owner) {
    GenericKubernetesResource proposal =
        TestManifests.object(
            client, Kind.WorkloadNetworkPolicyProposal, name, "", TestManifests.KUBERNETES_SPEC);
    proposal.getMetadata().setLabels(labels);
    if (owner != null) {
      proposal.getMetadata().setOwnerReferences(List.of(owner));
    }
    return proposal;
  }
}
