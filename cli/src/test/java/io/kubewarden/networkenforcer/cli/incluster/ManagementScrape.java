package io.kubewarden.networkenforcer.cli.incluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kubewarden.networkenforcer.testing.KubeCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Reads a pod's {@code /metrics} on the management port as a Prometheus scraper would: behind the
 * chart's Kubernetes access check, with a token of a ServiceAccount ({@code scraper}) bound to the
 * release's {@code *-metrics-reader} ClusterRole.
 */
final class ManagementScrape {
  private static final int MANAGEMENT_PORT = 8080;

  private ManagementScrape() {}

  /**
   * The body of {@code GET /metrics} of that pod of the release; {@code scraperNamespace} holds the
   * ServiceAccount, {@code binding} names its ClusterRoleBinding.
   */
  static String metrics(
      KubeCluster cluster,
      KubernetesClient admin,
      String namespace,
      String podName,
      String scraperNamespace,
      String binding) {
    String token = scraperToken(cluster, admin, scraperNamespace, binding);
    String ip = admin.pods().inNamespace(namespace).withName(podName).get().getStatus().getPodIP();
    URI uri = URI.create("http://" + ip + ":" + MANAGEMENT_PORT + "/metrics");
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(uri)
                      .header("Authorization", "Bearer " + token)
                      .timeout(Duration.ofSeconds(20))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as("GET %s: %s", uri, response.body()).isEqualTo(200);
      return response.body();
    } catch (IOException e) {
      throw new AssertionError("cannot read " + uri, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static String scraperToken(
      KubeCluster cluster, KubernetesClient admin, String namespace, String binding) {
    String role =
        admin
            .rbac()
            .clusterRoles()
            .withLabel("app.kubernetes.io/instance", InClusterIT.RELEASE)
            .list()
            .getItems()
            .stream()
            .map(r -> r.getMetadata().getName())
            .filter(n -> n.endsWith("-metrics-reader"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no metrics-reader ClusterRole in the release"));
    admin
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("scraper").endMetadata().build())
        .createOr(NonDeletingOperation::update);
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(binding)
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName(role)
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("scraper")
                .withNamespace(namespace)
                .endSubject()
                .build())
        .createOr(NonDeletingOperation::update);
    return cluster
        .kubectl("create", "token", "scraper", "--namespace", namespace, "--duration", "1h")
        .trim();
  }
}
