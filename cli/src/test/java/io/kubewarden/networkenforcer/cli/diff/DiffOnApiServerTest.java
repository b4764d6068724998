package io.kubewarden.networkenforcer.cli.diff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * diff against the WorkloadNetworkPolicy stored in a real kube-apiserver, read through a
 * kubeconfig.
 */
class DiffOnApiServerTest {
  static KubeApiServer api;
  static KubernetesClient admin;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    api = KubeApiServer.builder().start();
    admin = api.client();
    ProjectCrds.install(admin, Duration.ofSeconds(60));
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
        .create();
    WorkloadNetworkPolicy policy =
        Json.yaml().readValue(DiffFixtures.POLICY, WorkloadNetworkPolicy.class);
    admin.resources(WorkloadNetworkPolicy.class).inNamespace("demo").resource(policy).create();
    admin
        .serviceAccounts()
        .inNamespace("demo")
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("differ").endMetadata().build())
        .create();
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("differ-admin")
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName("cluster-admin")
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withNamespace("demo")
                .withName("differ")
                .endSubject()
                .build())
        .create();
  }

  /**
   * One kubeconfig, three contexts on the same server: admin (may read the policies), stranger (an
   * authenticated user RBAC lets read nothing, the current context) and forged (a token the server
   * does not accept).
   */
  private Path threeContexts() throws Exception {
    JsonNode adminFile = Json.yaml().readTree(api.kubeconfig().toFile());
    JsonNode strangerFile = Json.yaml().readTree(api.kubeconfigFor("stranger").toFile());
    Map<String, Object> cluster =
        Map.of("name", "test", "cluster", adminFile.at("/clusters/0/cluster"));
    Map<String, Object> doc =
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "Config",
            "current-context",
            "stranger",
            "clusters",
            List.of(cluster),
            "users",
            List.of(
                Map.of("name", "admin", "user", adminFile.at("/users/0/user")),
                Map.of("name", "stranger", "user", strangerFile.at("/users/0/user")),
                Map.of("name", "forged", "user", Map.of("token", "not-a-token-of-this-server"))),
            "contexts",
            List.of(context("admin"), context("stranger"), context("forged")));
    Path file = dir.resolve("three-contexts.yaml");
    Json.yaml().writeValue(file.toFile(), doc);
    return file;
  }

  private static Map<String, Object> context(String user) {
    return Map.of(
        "name", user, "context", Map.of("cluster", "test", "user", user, "namespace", "default"));
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  void comparesTheProposalWithThePolicyOfItsTargetInTheCluster() throws Exception {
    Path proposal = Files.writeString(dir.resolve("p.yaml"), DiffFixtures.PROPOSAL);
    CliRun run =
        CliRun.run(
            "diff",
            "--proposal",
            proposal.toString(),
            "--kubeconfig",
            api.kubeconfig().toString(),
            "-o",
            "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    var report = Json.mapper().readTree(run.out());
    assertThat(report.path("policies").asText()).startsWith("the cluster at https://");
    DiffCommandTest.assertExactDifferences(report);
  }

  @Test
  void readsThroughTheContextNamedNotTheCurrentOne() throws Exception {
    Path kubeconfig = threeContexts();
    Path proposal = Files.writeString(dir.resolve("p.yaml"), DiffFixtures.PROPOSAL);

    CliRun chosen =
        CliRun.run(
            "diff",
            "-f",
            proposal.toString(),
            "--kubeconfig",
            kubeconfig.toString(),
            "--context",
            "admin",
            "-o",
            "json");
    assertThat(chosen.exitCode()).as(chosen.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    DiffCommandTest.assertExactDifferences(Json.mapper().readTree(chosen.out()));

    // The current context's user may not list the policies: the same command without --context
    // fails for it.
    CliRun current =
        CliRun.run("diff", "-f", proposal.toString(), "--kubeconfig", kubeconfig.toString());
    assertThat(current.exitCode()).as(current.out()).isEqualTo(1);
    assertThat(current.err())
        .contains("cannot read WorkloadNetworkPolicies from the API server at " + api.url())
        .contains("User \"stranger\" cannot list resource \"workloadnetworkpolicies\"");
  }

  @Test
  void anUnknownContextIsRefusedNamingTheKubeconfig() throws Exception {
    Path kubeconfig = threeContexts();
    Path proposal = Files.writeString(dir.resolve("p.yaml"), DiffFixtures.PROPOSAL);
    CliRun run =
        CliRun.run(
            "diff",
            "-f",
            proposal.toString(),
            "--kubeconfig",
            kubeconfig.toString(),
            "--context",
            "prod");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--context prod is not a context of kubeconfig " + kubeconfig);
  }

  @Test
  void theServicesConnectThroughTheContextNamed() throws Exception {
    Path kubeconfig = threeContexts();
    CliRun unknown =
        CliRun.run(
            "writer",
            "--provider",
            "cilium",
            "--kafka-bootstrap-servers",
            "127.0.0.1:1",
            "--management-port",
            "0",
            "--probe-port",
            "0",
            "--kubeconfig",
            kubeconfig.toString(),
            "--context",
            "prod");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err())
        .contains("--context prod is not a context of kubeconfig " + kubeconfig);

    // The start-up check goes to the server as the forged context's user, which the server turns
    // away
    // (with a 401, or over HTTP/2 at times only a GOAWAY: the message then says it cannot reach
    // it).
    CliRun forged =
        CliRun.run(
            "writer",
            "--provider",
            "cilium",
            "--kafka-bootstrap-servers",
            "127.0.0.1:1",
            "--management-port",
            "0",
            "--probe-port",
            "0",
            "--kubeconfig",
            kubeconfig.toString(),
            "--context",
            "forged");
    assertThat(forged.exitCode()).isEqualTo(2);
    assertThat(forged.err())
        .contains("the Kubernetes API server at " + api.url())
        .contains("(from kubeconfig " + kubeconfig + ", context forged)");
  }

  @Test
  void waitsOnceForAServerThatAsksToRetryAfterASecond() throws Exception {
    JsonNode token = Json.yaml().readTree(api.serviceAccountKubeconfig("demo", "differ").toFile());
    try (ThrottlingForwarder forwarder =
        new ThrottlingForwarder(api.url(), api.config().getCaCertData())) {
      Map<String, Object> doc =
          Map.of(
              "apiVersion",
              "v1",
              "kind",
              "Config",
              "current-context",
              "via",
              "clusters",
              List.of(Map.of("name", "via", "cluster", Map.of("server", forwarder.url()))),
              "users",
              List.of(Map.of("name", "differ", "user", token.at("/users/0/user"))),
              "contexts",
              List.of(
                  Map.of("name", "via", "context", Map.of("cluster", "via", "user", "differ"))));
      Path kubeconfig = dir.resolve("via-forwarder.yaml");
      Json.yaml().writeValue(kubeconfig.toFile(), doc);
      Path proposal = Files.writeString(dir.resolve("p.yaml"), DiffFixtures.PROPOSAL);

      CliRun run =
          CliRun.run(
              "diff",
              "-f",
              proposal.toString(),
              "--kubeconfig",
              kubeconfig.toString(),
              "-o",
              "json");
      assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
      DiffCommandTest.assertExactDifferences(Json.mapper().readTree(run.out()));
      assertThat(forwarder.listStatuses).containsExactly(429, 200);
    }
  }

  @Test
  void anUnreachableServerFailsWithinTheBoundItStates() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    Path kubeconfig =
        Files.writeString(
            dir.resolve("unreachable.yaml"),
            Files.readString(api.kubeconfig()).replace(api.url(), "https://127.0.0.1:" + closed));
    Path proposal = Files.writeString(dir.resolve("p.yaml"), DiffFixtures.PROPOSAL);
    // Generous: the command states its own bound (2 attempts, 5 s connect timeout each).
    CliRun run =
        assertTimeoutPreemptively(
            Duration.ofSeconds(60),
            () ->
                CliRun.run(
                    "diff", "-f", proposal.toString(), "--kubeconfig", kubeconfig.toString()));
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains(
            "cannot read WorkloadNetworkPolicies from the API server at https://127.0.0.1:"
                + closed)
        .contains("Connection refused")
        .contains("gave up after 2 attempts 500 ms apart, 5 s connect timeout each");
  }
}
