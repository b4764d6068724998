package io.kubewarden.networkenforcer.cli.diff;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** diff against the WorkloadNetworkPolicy stored in a real kube-apiserver, read through a kubeconfig. */
class DiffOnApiServerTest {
  static KubeApiServer api;
  static KubernetesClient admin;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    api = KubeApiServer.builder().start();
    admin = api.client();
    ProjectCrds.install(admin, Duration.ofSeconds(60));
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
        .create();
    WorkloadNetworkPolicy policy = Json.yaml().readValue(DiffFixtures.POLICY, WorkloadNetworkPolicy.class);
    admin.resources(WorkloadNetworkPolicy.class).inNamespace("demo").resource(policy).create();
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
    CliRun run = CliRun.run("diff", "--proposal", proposal.toString(), "--kubeconfig", api.kubeconfig().toString(),
        "-o", "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    var report = Json.mapper().readTree(run.out());
    assertThat(report.path("policies").asText()).startsWith("the cluster at https://");
    DiffCommandTest.assertExactDifferences(report);
  }
}
