package io.kubewarden.networkenforcer.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.testing.ChartTemplates;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code writer.watchNamespaces} on a real API server: the chart's RBAC installed with {@code
 * watchNamespaces={demo}}, and the writer's own token (TokenRequest) writes a NetworkPolicy in
 * {@code demo}, is refused in another namespace, and still reads every namespace's policies
 * (monitor mode evaluates their union).
 */
class ChartWatchNamespacesTest {
  private static final String NAMESPACE = ChartTemplates.NAMESPACE;
  private static final String WRITER = ChartTemplates.RELEASE + "-network-enforcer-writer";

  static KubeApiServer api;

  @BeforeAll
  static void start() {
    api = KubeApiServer.builder().start();
    KubernetesClient admin = api.client();
    for (String namespace : List.of(NAMESPACE, "calico-system", "demo", "other")) {
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
    }
    String yaml =
        ChartTemplates.renderRelease(
            ChartTemplates.RELEASE,
            "--set",
            "mode=distributed",
            "--set",
            "controller.provider.name=calico",
            "--set",
            "kafka.bootstrapServers=kafka:9092",
            "--set",
            "writer.watchNamespaces={demo}",
            "--show-only",
            "templates/rbac.yaml",
            "--show-only",
            "templates/serviceaccounts.yaml");
    for (HasMetadata object : ChartTemplates.objects(admin, yaml)) {
      admin.resource(object).create();
    }
    admin
        .network()
        .v1()
        .networkPolicies()
        .inNamespace("other")
        .resource(policy("someone-elses"))
        .create();
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  @Test
  void theWriterWritesPoliciesOnlyInItsNamespacesAndReadsThemAll() {
    try (KubernetesClient writer = api.serviceAccountClient(NAMESPACE, WRITER)) {
      NetworkPolicy created =
          writer
              .network()
              .v1()
              .networkPolicies()
              .inNamespace("demo")
              .resource(policy("ours"))
              .create();
      assertThat(created.getMetadata().getUid()).isNotBlank();
      writer.network().v1().networkPolicies().inNamespace("demo").withName("ours").delete();

      assertThatThrownBy(
              () ->
                  writer
                      .network()
                      .v1()
                      .networkPolicies()
                      .inNamespace("other")
                      .resource(policy("ours"))
                      .create())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
      assertThatThrownBy(
              () ->
                  writer
                      .network()
                      .v1()
                      .networkPolicies()
                      .inNamespace("other")
                      .withName("someone-elses")
                      .delete())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));

      assertThat(writer.network().v1().networkPolicies().inAnyNamespace().list().getItems())
          .extracting(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
          .containsExactly("other/someone-elses");
    }
  }

  private static NetworkPolicy policy(String name) {
    return new NetworkPolicyBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNewPodSelector()
        .addToMatchLabels("app", "web")
        .endPodSelector()
        .withPolicyTypes("Ingress")
        .endSpec()
        .build();
  }
}
