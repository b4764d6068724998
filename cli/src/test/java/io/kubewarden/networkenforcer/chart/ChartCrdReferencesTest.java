package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CRDs in crds/ are generated elsewhere; the RBAC and admission rules of the chart name their
 * group, version and plurals, so check both sides agree.
 */
class ChartCrdReferencesTest {

  private static List<JsonNode> crds() throws Exception {
    Path dir = HelmChart.chartDir().resolve("templates").resolve("crds");
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.toString().endsWith(".yml") || f.toString().endsWith(".yaml"))
          .sorted()
          .map(
              f -> {
                try {
                  return Manifests.parse(Files.readString(f)).all();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .flatMap(List::stream)
          .toList();
    }
  }

  @Test
  void crdsAreTheTwoKindsOfTheContractAndSurviveUninstall() throws Exception {
    List<JsonNode> crds = crds();
    Set<String> plurals = new TreeSet<>();
    for (JsonNode crd : crds) {
      assertThat(crd.path("kind").asText()).isEqualTo("CustomResourceDefinition");
      assertThat(crd.path("metadata").path("annotations").path("helm.sh/resource-policy").asText())
          .isEqualTo("keep");
      plurals.add(crd.path("spec").path("names").path("plural").asText());
    }
    assertThat(plurals)
        .containsExactly(
            HasMetadata.getPlural(WorkloadNetworkPolicy.class),
            HasMetadata.getPlural(WorkloadNetworkPolicyProposal.class));
  }

  @Test
  void crdsAreTemplatesSoThatHelmUpgradeUpdatesThem() throws Exception {
    // helm never upgrades crds/: the CRDs must be rendered with the release (ChartUpgradeTest runs
    // the upgrade).
    assertThat(HelmChart.chartDir().resolve("crds")).doesNotExist();
    Manifests m = HelmChart.render(values());
    assertThat(m.ofKind("CustomResourceDefinition"))
        .extracting(c -> c.path("metadata").path("name").asText())
        .containsExactlyInAnyOrder(
            crds().stream()
                .map(c -> c.path("metadata").path("name").asText())
                .toArray(String[]::new));
    assertThat(m.ofKind("CustomResourceDefinition"))
        .allSatisfy(
            c ->
                assertThat(
                        c.path("metadata")
                            .path("annotations")
                            .path("helm.sh/resource-policy")
                            .asText())
                    .isEqualTo("keep"));
  }

  @Test
  void rbacAndAdmissionNameResourcesTheCrdsServe() throws Exception {
    Set<String> served = new TreeSet<>();
    for (JsonNode crd : crds()) {
      String group = crd.path("spec").path("group").asText();
      String plural = crd.path("spec").path("names").path("plural").asText();
      for (JsonNode version : elements(crd.path("spec").path("versions"))) {
        if (version.path("served").asBoolean()) {
          served.add(group + "/" + version.path("name").asText() + "/" + plural);
        }
      }
    }
    Manifests m = HelmChart.render(values());
    for (JsonNode policy : m.ofKind("ValidatingAdmissionPolicy")) {
      for (JsonNode rule :
          elements(policy.path("spec").path("matchConstraints").path("resourceRules"))) {
        for (String group : texts(rule.path("apiGroups"))) {
          for (String version : texts(rule.path("apiVersions"))) {
            for (String resource : texts(rule.path("resources"))) {
              assertThat(served).contains(group + "/" + version + "/" + resource);
            }
          }
        }
      }
    }
    JsonNode writer = m.get("ClusterRole", FULLNAME + "-policy-writer");
    Set<String> plurals = new TreeSet<>();
    served.forEach(s -> plurals.add(s.substring(s.lastIndexOf('/') + 1)));
    elements(writer.path("rules")).stream()
        .filter(r -> texts(r.path("apiGroups")).contains("networkenforcer.kubewarden.io"))
        .flatMap(r -> texts(r.path("resources")).stream())
        .forEach(
            resource ->
                assertThat(plurals).contains(resource.replaceAll("/(status|finalizers)$", "")));
  }
}
