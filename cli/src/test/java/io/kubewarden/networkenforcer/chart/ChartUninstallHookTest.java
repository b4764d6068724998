package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The post-delete hook that removes the writer's finalizer from every proposal once the release is
 * gone: a hook in both modes, the product image's own command, the restricted security context, and
 * exactly get, list and patch on proposals (k8s-writer's ApiServerLearningResetFinalizerTest runs
 * the command under this RBAC on a real API server).
 */
class ChartUninstallHookTest {
  static final String ACCOUNT = FULLNAME + "-finalizer-release";

  @ParameterizedTest
  @ValueSource(strings = {"standalone", "distributed"})
  void theHookFreesProposalsWithItsOwnLeastRbac(String mode) {
    Manifests m = HelmChart.render(Map.of("mode", mode, "kafka.bootstrapServers", "kafka:9092"));
    for (String kind : List.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Job")) {
      JsonNode o = m.get(kind, ACCOUNT);
      assertThat(o.path("metadata").path("annotations").path("helm.sh/hook").asText())
          .as(kind)
          .isEqualTo("post-delete");
      assertThat(o.path("metadata").path("annotations").path("helm.sh/hook-delete-policy").asText())
          .as(kind)
          .isEqualTo("before-hook-creation,hook-succeeded");
    }
    JsonNode pod = m.get("Job", ACCOUNT).path("spec").path("template").path("spec");
    assertThat(pod.path("serviceAccountName").asText()).isEqualTo(ACCOUNT);
    assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
    JsonNode container = elements(pod.path("containers")).get(0);
    assertThat(texts(container.path("args"))).containsExactly("release-finalizers");
    assertThat(container.path("securityContext").path("readOnlyRootFilesystem").asBoolean())
        .isTrue();
    assertThat(texts(container.path("securityContext").path("capabilities").path("drop")))
        .containsExactly("ALL");

    assertThat(ChartRbacTest.grants(m, ACCOUNT))
        .extracting(g -> g.namespace() + ":" + g.apiGroup() + "/" + g.resource() + " " + g.verbs())
        .containsExactly(
            ":networkenforcer.kubewarden.io/workloadnetworkpolicyproposals [get, list, patch]");
  }
}
