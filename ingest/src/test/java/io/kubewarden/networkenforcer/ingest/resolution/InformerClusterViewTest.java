package io.kubewarden.networkenforcer.ingest.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The informer-fed view against the fabric8 mock API server (CRUD mode, with watches). */
@EnableKubernetesMockClient(crud = true)
class InformerClusterViewTest {
  static KubernetesClient client;

  private static Pod pod(String name, String ip) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("shop")
        .withGenerateName("web-7f9c-")
        .addToLabels("app", "web")
        .addToLabels("pod-template-hash", "7f9c")
        .addNewOwnerReference()
        .withApiVersion("apps/v1")
        .withKind("ReplicaSet")
        .withName("web-7f9c")
        .withUid("rs-uid")
        .withController(true)
        .endOwnerReference()
        .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{\"big\":\"blob\"}")
        .endMetadata()
        .withNewSpec()
        .withServiceAccountName("web-sa")
        .addNewContainer()
        .withName("w")
        .withImage("w")
        .addNewEnv()
        .withName("SECRETISH")
        .withValue("x")
        .endEnv()
        .addNewPort()
        .withName("http")
        .withContainerPort(8080)
        .withProtocol("TCP")
        .endPort()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withPodIP(ip)
        .endStatus()
        .build();
  }

  @Test
  void followsPodsAndTheirOwnersThroughWatches() {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName("shop")
                .addToLabels("kubernetes.io/metadata.name", "shop")
                .endMetadata()
                .build())
        .create();
    client
        .apps()
        .deployments()
        .inNamespace("shop")
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("shop")
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("w")
                .withImage("w")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
    client
        .apps()
        .replicaSets()
        .inNamespace("shop")
        .resource(
            new ReplicaSetBuilder()
                .withNewMetadata()
                .withName("web-7f9c")
                .withNamespace("shop")
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("Deployment")
                .withName("web")
                .withUid("d-uid")
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .endSpec()
                .build())
        .create();
    client.pods().inNamespace("shop").resource(pod("web-7f9c-aaaaa", "10.2.0.1")).create();

    try (InformerClusterView view = InformerClusterView.start(client)) {
      assertThat(view.awaitSynced(Duration.ofSeconds(30))).isTrue();
      WorkloadResolver resolver = new WorkloadResolver(view);
      Resolution r = resolver.byIp("10.2.0.1");
      assertThat(r.endpoint().workload().orElseThrow().key()).isEqualTo("shop/Deployment/web");
      assertThat(r.endpoint().namespaceLabels())
          .containsEntry("kubernetes.io/metadata.name", "shop");
      assertThat(r.endpoint().serviceAccount()).isEqualTo("web-sa");
      assertThat(r.endpoint().namedPorts())
          .extracting(p -> p.name() + "/" + p.port())
          .containsExactly("http/8080");
      // The cache keeps only what resolution reads: no annotations, images or env on a large
      // cluster.
      Pod cached = view.podByIp("10.2.0.1").orElseThrow();
      assertThat(cached.getMetadata().getAnnotations()).isNullOrEmpty();
      assertThat(cached.getSpec().getContainers())
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.getImage()).isNull();
                assertThat(c.getEnv()).isNullOrEmpty();
                assertThat(c.getPorts()).hasSize(1);
              });
      assertThat(view.deployment("shop", "web").orElseThrow().getSpec().getTemplate()).isNull();

      // A new pod of the same ReplicaSet arrives through the watch; the old one goes away.
      client.pods().inNamespace("shop").resource(pod("web-7f9c-bbbbb", "10.2.0.2")).create();
      client.pods().inNamespace("shop").withName("web-7f9c-aaaaa").delete();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  resolver.byIp("10.2.0.2").resolved()
                      && resolver.byIp("10.2.0.1").dropReason() == DropReason.UNKNOWN_POD);
      assertThat(resolver.byAggregatedName("shop", "web-7f9c-*").endpoint().workloadName())
          .isEqualTo("web");
    }
  }
}
