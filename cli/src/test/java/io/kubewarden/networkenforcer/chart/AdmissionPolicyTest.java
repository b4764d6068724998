package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The two ValidatingAdmissionPolicies of api.md "Admission" and their bindings. */
class AdmissionPolicyTest {
  private static Manifests manifests;

  @BeforeAll
  static void render() {
    manifests = HelmChart.render(values());
  }

  @Test
  void promoteLabelMustBeMonitorOrProtect() {
    JsonNode policy = manifests.get("ValidatingAdmissionPolicy", FULLNAME + "-wnpp-promote-label");
    assertProposalRule(policy, "CREATE", "UPDATE");
    // Checked only when the label is present: proposals without it are admitted as usual.
    assertThat(policy.path("spec").path("matchConditions").get(0).path("expression").asText())
        .contains("'networkenforcer.kubewarden.io/promote' in object.metadata.labels");
    JsonNode validation = policy.path("spec").path("validations").get(0);
    assertThat(validation.path("message").asText())
        .isEqualTo("networkenforcer.kubewarden.io/promote must be \"monitor\" or \"protect\"");
    assertThat(validation.path("expression").asText()).contains("['monitor', 'protect']");
    assertBinding(policy);
  }

  @Test
  void ownerReferencesOfAProposalCannotChange() {
    JsonNode policy =
        manifests.get("ValidatingAdmissionPolicy", FULLNAME + "-wnpp-owner-references");
    assertProposalRule(policy, "UPDATE");
    String expression = policy.path("spec").path("validations").get(0).path("expression").asText();
    assertThat(expression)
        .isEqualTo("variables.newOwners == variables.oldOwners || variables.repairsMissingOwner");
    Map<String, String> variables = new HashMap<>();
    policy
        .path("spec")
        .path("variables")
        .forEach(v -> variables.put(v.path("name").asText(), v.path("expression").asText()));
    assertThat(variables.get("newOwners")).contains("object.metadata.ownerReferences");
    assertThat(variables.get("oldOwners")).contains("oldObject.metadata.ownerReferences");
    // The one change allowed: the controller reference to the proposal's own target, when it has
    // none.
    assertThat(variables.get("repairsMissingOwner"))
        .contains("size(variables.oldOwners) == 0")
        .contains("object.spec.targetRef.kind")
        .contains("object.spec.targetRef.name")
        .contains("controller == true");
    assertBinding(policy);
  }

  @Test
  void canBeLeftOutForClustersThatManageAdmissionElsewhere() {
    Manifests without = HelmChart.render(values("admissionPolicies.enabled", "false"));
    assertThat(without.ofKind("ValidatingAdmissionPolicy")).isEmpty();
    assertThat(without.ofKind("ValidatingAdmissionPolicyBinding")).isEmpty();
  }

  private static void assertProposalRule(JsonNode policy, String... operations) {
    assertThat(policy.path("apiVersion").asText()).isEqualTo("admissionregistration.k8s.io/v1");
    assertThat(policy.path("spec").path("failurePolicy").asText()).isEqualTo("Fail");
    JsonNode rules = policy.path("spec").path("matchConstraints").path("resourceRules");
    assertThat(elements(rules)).hasSize(1);
    assertThat(texts(rules.get(0).path("apiGroups")))
        .containsExactly("networkenforcer.kubewarden.io");
    assertThat(texts(rules.get(0).path("resources")))
        .containsExactly("workloadnetworkpolicyproposals");
    assertThat(texts(rules.get(0).path("operations"))).containsExactly(operations);
  }

  private static void assertBinding(JsonNode policy) {
    String name = policy.path("metadata").path("name").asText();
    JsonNode binding = manifests.get("ValidatingAdmissionPolicyBinding", name);
    assertThat(binding.path("spec").path("policyName").asText()).isEqualTo(name);
    assertThat(texts(binding.path("spec").path("validationActions"))).containsExactly("Deny");
  }
}
