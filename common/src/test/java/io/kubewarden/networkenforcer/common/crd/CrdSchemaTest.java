package io.kubewarden.networkenforcer.common.crd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The committed CRD manifests (what the chart installs) have the shape the API contract describes.
 */
class CrdSchemaTest {

  private static final String WNP_FILE =
      "workloadnetworkpolicies.networkenforcer.kubewarden.io-v1.yml";
  private static final String WNPP_FILE =
      "workloadnetworkpolicyproposals.networkenforcer.kubewarden.io-v1.yml";

  private static final List<String> LABEL_SELECTOR_PATHS =
      List.of(
          "kubernetes.podSelector",
          "istio.selector",
          "kubernetes.ingress[].from[].podSelector",
          "kubernetes.ingress[].from[].namespaceSelector",
          "kubernetes.egress[].to[].podSelector",
          "kubernetes.egress[].to[].namespaceSelector");

  private final CustomResourceDefinition wnp = load(WNP_FILE);
  private final CustomResourceDefinition wnpp = load(WNPP_FILE);

  private static CustomResourceDefinition load(String file) {
    try (InputStream in = Files.newInputStream(CrdManifests.committedDir().resolve(file))) {
      return new KubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read committed CRD " + file + "; generate it with " + CrdManifests.UPDATE_COMMAND,
          e);
    }
  }

  private static CustomResourceDefinitionVersion onlyVersion(CustomResourceDefinition crd) {
    assertThat(crd.getSpec().getVersions()).hasSize(1);
    return crd.getSpec().getVersions().get(0);
  }

  private static JSONSchemaProps root(CustomResourceDefinition crd) {
    return onlyVersion(crd).getSchema().getOpenAPIV3Schema();
  }

  private static JSONSchemaProps spec(CustomResourceDefinition crd) {
    return root(crd).getProperties().get("spec");
  }

  /** Follows a dotted path below a schema; {@code name[]} steps into the items of a list. */
  private static JSONSchemaProps at(JSONSchemaProps schema, String path) {
    JSONSchemaProps current = schema;
    for (String step : path.split("\\.")) {
      boolean list = step.endsWith("[]");
      String name = list ? step.substring(0, step.length() - 2) : step;
      assertThat(current.getProperties())
          .as("schema property %s of %s", name, path)
          .containsKey(name);
      current = current.getProperties().get(name);
      if (list) {
        assertThat(current.getType()).as("%s is a list", name).isEqualTo("array");
        current = current.getItems().getSchema();
      }
    }
    return current;
  }

  @Test
  void namesScopeAndVersionMatchTheContract() {
    assertThat(wnp.getMetadata().getName())
        .isEqualTo("workloadnetworkpolicies.networkenforcer.kubewarden.io");
    assertThat(wnp.getSpec().getGroup()).isEqualTo(CrdConstants.GROUP);
    assertThat(wnp.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(wnp.getSpec().getNames().getKind()).isEqualTo("WorkloadNetworkPolicy");
    assertThat(wnp.getSpec().getNames().getPlural()).isEqualTo("workloadnetworkpolicies");
    assertThat(wnp.getSpec().getNames().getSingular()).isEqualTo("workloadnetworkpolicy");
    assertThat(wnp.getSpec().getNames().getShortNames()).containsExactly("wnp");

    assertThat(wnpp.getMetadata().getName())
        .isEqualTo("workloadnetworkpolicyproposals.networkenforcer.kubewarden.io");
    assertThat(wnpp.getSpec().getGroup()).isEqualTo(CrdConstants.GROUP);
    assertThat(wnpp.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(wnpp.getSpec().getNames().getKind()).isEqualTo("WorkloadNetworkPolicyProposal");
    assertThat(wnpp.getSpec().getNames().getPlural()).isEqualTo("workloadnetworkpolicyproposals");
    assertThat(wnpp.getSpec().getNames().getShortNames()).containsExactly("wnpp");

    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      CustomResourceDefinitionVersion v = onlyVersion(crd);
      assertThat(v.getName()).isEqualTo(CrdConstants.VERSION);
      assertThat(v.getServed()).isTrue();
      assertThat(v.getStorage()).isTrue();
      assertThat(v.getSubresources().getStatus())
          .as("status subresource of %s", crd.getMetadata().getName())
          .isNotNull();
      assertThat(crd.getMetadata().getAnnotations())
          .containsEntry("helm.sh/resource-policy", "keep");
    }
  }

  @Test
  void printerColumnsAreInContractOrderWithPathsAndTypes() {
    assertThat(onlyVersion(wnp).getAdditionalPrinterColumns())
        .extracting(c -> c.getName(), c -> c.getJsonPath(), c -> c.getType())
        .containsExactly(
            tuple("Mode", ".spec.mode", "string"),
            tuple("Active Violations", ".status.activeViolationCount", "integer"),
            tuple("Age", ".metadata.creationTimestamp", "date"));
    assertThat(onlyVersion(wnpp).getAdditionalPrinterColumns())
        .extracting(c -> c.getName(), c -> c.getJsonPath(), c -> c.getType())
        .containsExactly(
            tuple("Backend", ".spec.backend", "string"),
            tuple("Direction", ".spec.direction", "string"),
            tuple("Target", ".spec.targetRef.name", "string"),
            tuple("Rules", ".status.ruleCount", "integer"),
            tuple("Converged", ".status.conditions[?(@.type==\"Converged\")].status", "string"),
            tuple("Age", ".metadata.creationTimestamp", "date"));
  }

  @Test
  void everyPrinterColumnPointsAtASchemaFieldOfItsType() {
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      onlyVersion(crd).getAdditionalPrinterColumns().stream()
          .filter(c -> !c.getJsonPath().startsWith(".metadata."))
          // A condition's status: a filter on the standard conditions list, checked below.
          .filter(c -> !c.getJsonPath().startsWith(".status.conditions[?("))
          .forEach(
              c -> {
                // kubectl's JSONPath has no functions such as length(): a plain field path only.
                assertThat(c.getJsonPath()).as(c.getName()).matches("(\\.[a-zA-Z]+)+");
                JSONSchemaProps field = at(root(crd), c.getJsonPath().substring(1));
                assertThat(field.getType())
                    .as("type of column %s", c.getName())
                    .isEqualTo(c.getType());
              });
    }
  }

  @Test
  void specRequiresBackendTargetAndDirectionWithTheirEnums() {
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      JSONSchemaProps spec = spec(crd);
      assertThat(spec.getRequired()).containsExactlyInAnyOrder("backend", "targetRef", "direction");
      assertThat(enumOf(at(spec, "backend")))
          .containsExactlyInAnyOrder("kubernetes", "istio", "cilium");
      assertThat(enumOf(at(spec, "direction"))).containsExactlyInAnyOrder("Ingress", "Egress");
      assertThat(at(spec, "targetRef").getRequired()).containsExactlyInAnyOrder("kind", "name");
      assertThat(enumOf(at(spec, "targetRef.kind")))
          .containsExactlyInAnyOrder("Deployment", "StatefulSet", "DaemonSet", "CronJob");
      assertThat(at(spec, "targetRef.name").getType()).isEqualTo("string");
      assertThat(at(spec, "kubernetes").getType()).isEqualTo("object");
      assertThat(at(spec, "istio").getType()).isEqualTo("object");
      assertThat(at(spec, "cilium").getType()).isEqualTo("object");
    }
  }

  /** {@code kubectl explain} has something to say about every field of ours. */
  @Test
  void ourSpecFieldsAreDescribed() {
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      spec(crd)
          .getProperties()
          .forEach(
              (name, field) ->
                  assertThat(field.getDescription())
                      .as("description of spec.%s", name)
                      .isNotBlank());
      at(spec(crd), "targetRef")
          .getProperties()
          .forEach(
              (name, field) ->
                  assertThat(field.getDescription())
                      .as("description of spec.targetRef.%s", name)
                      .isNotBlank());
    }
    root(wnp)
        .getProperties()
        .get("status")
        .getProperties()
        .forEach(
            (name, field) ->
                assertThat(field.getDescription())
                    .as("description of status.%s", name)
                    .isNotBlank());
  }

  @Test
  void onlyThePolicyHasAModeAndItDefaultsToMonitor() {
    JSONSchemaProps mode = at(spec(wnp), "mode");
    assertThat(mode.getType()).isEqualTo("string");
    assertThat(enumOf(mode)).containsExactlyInAnyOrder("monitor", "protect");
    assertThat(mode.getDefault()).isNotNull();
    assertThat(mode.getDefault().asText()).isEqualTo("monitor");
    assertThat(spec(wnp).getRequired()).doesNotContain("mode");
    assertThat(spec(wnpp).getProperties()).doesNotContainKey("mode");
  }

  @Test
  void kubernetesPayloadIsTheCompleteNetworkPolicySpec() {
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      JSONSchemaProps k8s = at(spec(crd), "kubernetes");
      assertThat(k8s.getProperties())
          .containsOnlyKeys("podSelector", "policyTypes", "ingress", "egress");
      assertThat(at(k8s, "policyTypes").getItems().getSchema().getType()).isEqualTo("string");
      for (String peer : List.of("ingress[].from[]", "egress[].to[]")) {
        assertThat(at(k8s, peer).getProperties())
            .containsOnlyKeys("podSelector", "namespaceSelector", "ipBlock");
        assertThat(at(k8s, peer + ".ipBlock").getRequired()).containsExactly("cidr");
        assertThat(at(k8s, peer + ".ipBlock.except").getItems().getSchema().getType())
            .isEqualTo("string");
      }
      for (String ports : List.of("ingress[].ports[]", "egress[].ports[]")) {
        JSONSchemaProps port = at(k8s, ports + ".port");
        assertThat(port.getXKubernetesIntOrString()).as("%s.port is int-or-string", ports).isTrue();
        assertThat(port.getAnyOf())
            .extracting(JSONSchemaProps::getType)
            .containsExactly("integer", "string");
        assertThat(at(k8s, ports + ".endPort").getType()).isEqualTo("integer");
        assertThat(at(k8s, ports + ".protocol").getType()).isEqualTo("string");
      }
    }
  }

  @Test
  void everyLabelSelectorHasMatchLabelsAndValidMatchExpressions() {
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      for (String path : LABEL_SELECTOR_PATHS) {
        JSONSchemaProps selector = at(spec(crd), path);
        assertThat(selector.getProperties())
            .as(path)
            .containsOnlyKeys("matchLabels", "matchExpressions");
        assertThat(at(selector, "matchLabels").getAdditionalProperties().getSchema().getType())
            .isEqualTo("string");
        JSONSchemaProps requirement = at(selector, "matchExpressions[]");
        assertThat(requirement.getRequired()).as(path).containsExactlyInAnyOrder("key", "operator");
        assertThat(at(requirement, "values").getItems().getSchema().getType()).isEqualTo("string");
      }
    }
  }

  @Test
  void istioPayloadIsTheReducedAuthorizationPolicy() {
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      JSONSchemaProps istio = at(spec(crd), "istio");
      assertThat(istio.getRequired()).containsExactly("selector");
      assertThat(istio.getProperties()).containsOnlyKeys("selector", "rules");
      assertThat(at(istio, "rules[]").getProperties()).containsOnlyKeys("from", "to");
      assertThat(at(istio, "rules[].from[].source.principals").getItems().getSchema().getType())
          .isEqualTo("string");
      assertThat(at(istio, "rules[].to[].operation.ports").getItems().getSchema().getType())
          .isEqualTo("string");
      assertThat(at(istio, "rules[].from[].source").getProperties()).containsOnlyKeys("principals");
      assertThat(at(istio, "rules[].to[].operation").getProperties()).containsOnlyKeys("ports");
    }
  }

  @Test
  void ciliumPayloadIsTheReducedCiliumNetworkPolicy() {
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      JSONSchemaProps cilium = at(spec(crd), "cilium");
      assertThat(cilium.getRequired()).containsExactly("endpointSelector");
      assertThat(cilium.getProperties()).containsOnlyKeys("endpointSelector", "ingress", "egress");
      assertThat(at(cilium, "egress[]").getProperties())
          .containsOnlyKeys(
              "toEndpoints", "toEntities", "toFQDNs", "toCIDR", "toCIDRSet", "toPorts");
      assertThat(at(cilium, "ingress[]").getProperties())
          .containsOnlyKeys("fromEndpoints", "fromEntities", "fromCIDR", "fromCIDRSet", "toPorts");
      assertThat(at(cilium, "egress[].toEntities[]").getType()).isEqualTo("string");
      assertThat(at(cilium, "ingress[].fromEntities[]").getType()).isEqualTo("string");
      assertThat(at(cilium, "egress[].toFQDNs[]").getProperties())
          .containsOnlyKeys("matchName", "matchPattern");
      assertThat(at(cilium, "egress[].toPorts[].rules.dns[]").getProperties())
          .containsOnlyKeys("matchName", "matchPattern");
      assertThat(at(cilium, "egress[].toPorts[].ports[]").getRequired()).containsExactly("port");
      assertThat(at(cilium, "ingress[].toPorts[].rules.http[]").getProperties())
          .containsOnlyKeys("method", "path");
    }
  }

  @Test
  void specCarriesTheSevenCelRulesWithTheirMessages() {
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      assertThat(spec(crd).getXKubernetesValidations())
          .extracting(ValidationRule::getRule, ValidationRule::getMessage)
          .containsExactly(
              tuple(
                  "(self.backend == 'kubernetes' && has(self.kubernetes) && !has(self.istio)"
                      + " && !has(self.cilium))"
                      + " || (self.backend == 'istio' && has(self.istio) && !has(self.kubernetes)"
                      + " && !has(self.cilium))"
                      + " || (self.backend == 'cilium' && has(self.cilium) && !has(self.kubernetes)"
                      + " && !has(self.istio))",
                  "exactly one of spec.kubernetes, spec.istio or spec.cilium must be set, and it"
                      + " must match spec.backend"),
              tuple(
                  "self.backend != 'kubernetes' || !has(self.kubernetes) || (has(self.kubernetes.podSelector)"
                      + " && ((has(self.kubernetes.podSelector.matchLabels)"
                      + " && size(self.kubernetes.podSelector.matchLabels) > 0)"
                      + " || (has(self.kubernetes.podSelector.matchExpressions)"
                      + " && size(self.kubernetes.podSelector.matchExpressions) > 0)))",
                  "spec.kubernetes.podSelector must have matchLabels or matchExpressions"),
              tuple(
                  "self.backend != 'istio' || !has(self.istio) || (has(self.istio.selector)"
                      + " && ((has(self.istio.selector.matchLabels) && size(self.istio.selector.matchLabels) > 0)"
                      + " || (has(self.istio.selector.matchExpressions)"
                      + " && size(self.istio.selector.matchExpressions) > 0)))",
                  "spec.istio.selector must not be empty"),
              tuple(
                  "self.backend != 'istio' || self.direction == 'Ingress'",
                  "the istio backend supports direction Ingress only (ztunnel enforces inbound traffic)"),
              tuple(
                  "self.backend != 'kubernetes' || !has(self.kubernetes)"
                      + " || (has(self.kubernetes.policyTypes) && self.kubernetes.policyTypes == [self.direction])",
                  "spec.kubernetes.policyTypes must be exactly [spec.direction]"),
              tuple(
                  "self.backend != 'cilium' || !has(self.cilium) || (has(self.cilium.endpointSelector)"
                      + " && ((has(self.cilium.endpointSelector.matchLabels)"
                      + " && size(self.cilium.endpointSelector.matchLabels) > 0)"
                      + " || (has(self.cilium.endpointSelector.matchExpressions)"
                      + " && size(self.cilium.endpointSelector.matchExpressions) > 0)))",
                  "spec.cilium.endpointSelector must have matchLabels or matchExpressions"),
              tuple(
                  "self.backend != 'cilium' || !has(self.cilium)"
                      + " || (self.direction == 'Ingress' ? !has(self.cilium.egress)"
                      + " : !has(self.cilium.ingress))",
                  "spec.cilium may carry rules of spec.direction only"));
      assertThat(at(spec(crd), "backend").getXKubernetesValidations())
          .extracting(ValidationRule::getRule, ValidationRule::getMessage)
          .containsExactly(tuple("self == oldSelf", "spec.backend is immutable"));
    }
  }

  /**
   * A has() or field access on a path the schema lacks is a CEL compile error in the API server.
   */
  @Test
  void everyFieldTheCelRulesReferToExistsInTheSchema() {
    Pattern selfPath = Pattern.compile("self((?:\\.[a-zA-Z]+)+)");
    for (CustomResourceDefinition crd : List.of(wnp, wnpp)) {
      List<String> paths = new ArrayList<>();
      for (ValidationRule rule : spec(crd).getXKubernetesValidations()) {
        Matcher m = selfPath.matcher(rule.getRule());
        while (m.find()) {
          paths.add(m.group(1).substring(1));
        }
      }
      assertThat(paths)
          .contains(
              "kubernetes.podSelector.matchExpressions",
              "istio.selector.matchLabels",
              "kubernetes.policyTypes",
              "direction");
      paths.forEach(path -> assertThat(at(spec(crd), path)).as(path).isNotNull());
    }
  }

  @Test
  void policyStatusHasCountsAndCappedRecordLists() {
    JSONSchemaProps status = root(wnp).getProperties().get("status");
    assertThat(status.getProperties())
        .containsOnlyKeys(
            "observedGeneration",
            "violationCount",
            "activeViolationCount",
            "violations",
            "acknowledgedViolations",
            "conditions",
            "mergedOffsets");
    // Ours: the merge watermark per partition of the violations topic (a record is merged once).
    assertThat(at(status, "mergedOffsets[]").getProperties())
        .containsOnlyKeys("topic", "partition", "offset");
    assertThat(at(status, "mergedOffsets[].offset").getType()).isEqualTo("integer");
    assertThat(at(status, "violationCount").getType()).isEqualTo("integer");
    assertThat(at(status, "activeViolationCount").getType()).isEqualTo("integer");
    assertThat(at(status, "observedGeneration").getType()).isEqualTo("integer");
    assertThat(at(status, "violations").getMaxItems())
        .isEqualTo(WorkloadNetworkPolicyStatus.MAX_RECORDS);
    assertThat(at(status, "acknowledgedViolations").getMaxItems())
        .isEqualTo(WorkloadNetworkPolicyStatus.MAX_RECORDS);

    JSONSchemaProps record = at(status, "violations[]");
    assertThat(record.getProperties())
        .containsOnlyKeys(
            "id",
            "timestamp",
            "source",
            "dest",
            "protocol",
            "dstPort",
            "action",
            "denyingPolicyNamespace",
            "denyingPolicyName",
            // Ours: the HTTP request of a violation of one request (Cilium's L7 proxy).
            "httpMethod",
            "httpPath");
    assertThat(at(record, "httpPath").getType()).isEqualTo("string");
    assertThat(at(record, "id").getType()).isEqualTo("integer");
    assertThat(at(record, "dstPort").getType()).isEqualTo("integer");
    assertThat(enumOf(at(record, "protocol"))).contains("TCP", "UDP");
    assertThat(enumOf(at(record, "action"))).containsExactlyInAnyOrder("monitor", "protect");
    for (String end : List.of("source", "dest")) {
      assertThat(at(record, end).getProperties())
          .containsOnlyKeys("namespace", "ownerKind", "ownerName", "identity", "selector");
    }
    assertThat(at(status, "acknowledgedViolations[]").getProperties())
        .containsOnlyKeys("violation", "reason", "acknowledgedAt");
    assertThat(at(status, "acknowledgedViolations[].violation").getProperties())
        .isEqualTo(record.getProperties());
  }

  @Test
  void proposalStatusHasEvidencePerRuleAndPort() {
    JSONSchemaProps status = root(wnpp).getProperties().get("status");
    assertThat(status.getProperties())
        .containsOnlyKeys(
            "evidence", "ruleCount", "conditions", "observedGeneration", "lostEvents");
    // Events the data plane lost, per provider and node, while they hold Converged false; a node it
    // could not read for a time is marked (its loss has no count).
    assertThat(at(status, "lostEvents[]").getProperties())
        .containsOnlyKeys(
            "provider", "node", "lostEvents", "firstLost", "lastLost", "nodeUnavailable");
    assertThat(at(status, "lostEvents[].lostEvents").getType()).isEqualTo("integer");
    assertThat(at(status, "lostEvents[].nodeUnavailable").getType()).isEqualTo("boolean");
    assertThat(at(status, "conditions[]").getProperties())
        .containsKeys(
            "type", "status", "reason", "message", "observedGeneration", "lastTransitionTime");
    assertThat(at(status, "evidence[]").getProperties())
        .containsOnlyKeys(
            "rule", "peer", "peerKnownBy", "ports", "dnsNames", "firstSeen", "lastSeen", "count");
    assertThat(at(status, "evidence[].peerKnownBy").getType()).isEqualTo("string");
    assertThat(at(status, "evidence[].count").getType()).isEqualTo("integer");
    assertThat(at(status, "evidence[].ports[]").getProperties())
        .containsOnlyKeys("protocol", "port", "firstSeen", "lastSeen", "count", "seenAs");
    assertThat(at(status, "evidence[].ports[].count").getType()).isEqualTo("integer");
    assertThat(at(status, "evidence[].ports[].seenAs").getType()).isEqualTo("array");
  }

  private static List<String> enumOf(JSONSchemaProps schema) {
    assertThat(schema.getEnum()).as("enum").isNotNull();
    return schema.getEnum().stream().map(n -> n.asText()).toList();
  }
}
