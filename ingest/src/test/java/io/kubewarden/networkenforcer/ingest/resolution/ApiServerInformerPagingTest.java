package io.kubewarden.networkenforcer.ingest.resolution;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The informers list a large cluster page by page (a real kube-apiserver, which pages from etcd),
 * and every object of every page reaches the view.
 */
class ApiServerInformerPagingTest {
  private static final int PODS = 5;
  private static KubeApiServer api;

  @BeforeAll
  static void startApiServer() {
    api = KubeApiServer.builder().start();
  }

  @AfterAll
  static void stopApiServer() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  void podsAreListedInPagesAndAllOfThemResolve() {
    KubernetesClient admin = api.client();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata().build())
        .create();
    admin
        .serviceAccounts()
        .inNamespace("shop")
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build())
        .create();
    for (int i = 0; i < PODS; i++) {
      admin
          .pods()
          .inNamespace("shop")
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("web-" + i)
                  .addToLabels("app", "web")
                  .endMetadata()
                  .withNewSpec()
                  .withAutomountServiceAccountToken(false)
                  .addNewContainer()
                  .withName("main")
                  .withImage("web:1")
                  .addNewEnv()
                  .withName("BULK")
                  .withValue("not kept")
                  .endEnv()
                  .addNewPort()
                  .withName("http")
                  .withContainerPort(8080)
                  .withProtocol("TCP")
                  .endPort()
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
    }
    List<URI> requests = new CopyOnWriteArrayList<>();
    Interceptor recorder =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            requests.add(request.uri());
          }
        };

    try (KubernetesClient recorded =
            new KubernetesClientBuilder()
                .withConfig(api.config())
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("record", recorder))
                .build();
        InformerClusterView view = InformerClusterView.start(recorded, 2)) {
      assertThat(view.awaitSynced(Duration.ofSeconds(60))).isTrue();

      for (int i = 0; i < PODS; i++) {
        assertThat(view.podByName("shop", "web-" + i))
            .as("web-%d", i)
            .hasValueSatisfying(
                pod ->
                    assertThat(pod.getSpec().getContainers())
                        .singleElement()
                        .satisfies(
                            c -> {
                              assertThat(c.getPorts())
                                  .singleElement()
                                  .satisfies(p -> assertThat(p.getName()).isEqualTo("http"));
                              assertThat(c.getEnv()).isNullOrEmpty();
                            }));
      }
      // Five pods at two a page: exactly three list requests, the last two continuing the first.
      List<String> podLists =
          requests.stream()
              .filter(
                  uri ->
                      uri.getPath().equals("/api/v1/pods")
                          && !String.valueOf(uri.getQuery()).contains("watch=true"))
              .map(URI::getQuery)
              .toList();
      assertThat(podLists).hasSize(3).allSatisfy(query -> assertThat(query).contains("limit=2"));
      assertThat(podLists.get(0)).doesNotContain("continue=");
      assertThat(podLists.subList(1, 3))
          .allSatisfy(query -> assertThat(query).contains("continue="));
    }
  }
}
