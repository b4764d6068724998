package io.kubewarden.networkenforcer.common.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Our resources serialize to the shape the CRDs describe, with both the fabric8 and our own mapper.
 */
class CrdJsonTest {

  private final KubernetesSerialization kube = new KubernetesSerialization();

  private static WorkloadNetworkPolicyProposal proposal() {
    WorkloadNetworkPolicyProposalSpec spec = new WorkloadNetworkPolicyProposalSpec();
    spec.setBackend(Backend.kubernetes);
    spec.setDirection(Direction.Ingress);
    spec.setTargetRef(new TargetRef(WorkloadKind.Deployment, "http-server"));
    spec.setKubernetes(
        new NetworkPolicySpecBuilder()
            .withPodSelector(
                new LabelSelectorBuilder().addToMatchLabels("app", "http-server").build())
            .withPolicyTypes("Ingress")
            .build());
    WorkloadNetworkPolicyProposal wnpp = new WorkloadNetworkPolicyProposal();
    wnpp.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-http-server-ingress")
            .withNamespace("ns")
            .build());
    wnpp.setSpec(spec);
    wnpp.setStatus(
        new WorkloadNetworkPolicyProposalStatus(
            List.of(
                new RuleEvidence(
                    0,
                    "ns/Deployment/client",
                    List.of(
                        new PortEvidence(
                            "TCP", "8080", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", 3))),
                new RuleEvidence(1, "ns/Deployment/other", List.of()))));
    return wnpp;
  }

  @Test
  void proposalWritesLowerCaseBackendAndARuleCountThatIsNotReadBack() throws Exception {
    WorkloadNetworkPolicyProposal wnpp = proposal();
    String json = kube.asJson(wnpp);
    JsonNode tree = Json.mapper().readTree(json);
    assertThat(tree.at("/apiVersion").asText()).isEqualTo(CrdConstants.API_VERSION);
    assertThat(tree.at("/kind").asText()).isEqualTo("WorkloadNetworkPolicyProposal");
    assertThat(tree.at("/spec/backend").asText()).isEqualTo("kubernetes");
    assertThat(tree.at("/spec/targetRef/kind").asText()).isEqualTo("Deployment");
    assertThat(tree.at("/status/ruleCount").asInt()).isEqualTo(2);

    WorkloadNetworkPolicyProposal back = kube.unmarshal(json, WorkloadNetworkPolicyProposal.class);
    assertThat(back.getSpec()).isEqualTo(wnpp.getSpec());
    assertThat(back.getStatus()).isEqualTo(wnpp.getStatus());
    assertThat(back.getStatus().getRuleCount()).isEqualTo(2);

    WorkloadNetworkPolicyProposal viaOurMapper =
        Json.mapper()
            .readValue(Json.mapper().writeValueAsBytes(wnpp), WorkloadNetworkPolicyProposal.class);
    assertThat(viaOurMapper.getStatus()).isEqualTo(wnpp.getStatus());
  }

  @Test
  void policyModeDefaultsToMonitorAndRoundTrips() {
    WorkloadNetworkPolicySpec spec = new WorkloadNetworkPolicySpec();
    assertThat(spec.getMode()).isEqualTo(Mode.monitor);
    spec.copySharedFrom(proposal().getSpec());
    spec.setMode(Mode.protect);
    WorkloadNetworkPolicy wnp = new WorkloadNetworkPolicy();
    wnp.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-http-server-ingress")
            .withNamespace("ns")
            .build());
    wnp.setSpec(spec);

    String json = kube.asJson(wnp);
    assertThat(json).contains("\"mode\":\"protect\"");
    WorkloadNetworkPolicy back = kube.unmarshal(json, WorkloadNetworkPolicy.class);
    assertThat(back.getSpec()).isEqualTo(spec);
    assertThat(back.getSpec().sameAllowListAs(proposal().getSpec())).isTrue();

    WorkloadNetworkPolicy noMode =
        kube.unmarshal(
            json.replace("\"mode\":\"protect\",", "").replace(",\"mode\":\"protect\"", ""),
            WorkloadNetworkPolicy.class);
    assertThat(noMode.getSpec().getMode()).isEqualTo(Mode.monitor);
  }
}
