package io.kubewarden.networkenforcer.cli.learn;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.testing.KubeApiServer;
import io.kubewarden.networkenforcer.common.testing.ProjectCrds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files {@code learn} writes are valid manifests: a real kube-apiserver with the project's CRDs
 * (OpenAPI schema and CEL rules) accepts every one of them as written, and keeps the learned spec.
 */
class LearnedManifestsOnApiServerTest {
  static KubeApiServer api;
  static KubernetesClient admin;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() {
    api = KubeApiServer.builder().start();
    admin = api.client();
    ProjectCrds.install(admin, Duration.ofSeconds(60));
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
        .create();
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  void kubernetesAndIstioProposalsAreAcceptedByTheApiServer() throws Exception {
    Path kubernetes = dir.resolve("kubernetes");
    Path istio = dir.resolve("istio");
    assertThat(CliRun.run("learn", "--input", sample("hubble-flows.jsonl").toString(), "--output-dir",
        kubernetes.toString()).exitCode()).isZero();
    assertThat(CliRun.run("learn", "--input", sample("ztunnel.jsonl").toString(), "--cluster-state",
        sample("cluster-state.json").toString(), "--output-dir", istio.toString()).exitCode()).isZero();

    Map<String, WorkloadNetworkPolicyProposal> learned = LearnedProposals.read(kubernetes);
    assertThat(learned).hasSize(3);
    apply(kubernetes);
    for (WorkloadNetworkPolicyProposal p : learned.values()) {
      WorkloadNetworkPolicyProposal stored = admin.resources(WorkloadNetworkPolicyProposal.class)
          .inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).get();
      assertThat(stored).as(p.getMetadata().getName()).isNotNull();
      assertThat(stored.getSpec().sameAllowListAs(p.getSpec())).as(p.getMetadata().getName()).isTrue();
    }

    // The Istio proposal has the same name as the Kubernetes one: apply it in place of it.
    admin.resources(WorkloadNetworkPolicyProposal.class).inNamespace("demo")
        .withName("deployment-http-server-ingress").delete();
    List<String> applied = apply(istio);
    assertThat(applied).containsExactly("demo/deployment-http-server-ingress");
    WorkloadNetworkPolicyProposal stored = admin.resources(WorkloadNetworkPolicyProposal.class).inNamespace("demo")
        .withName("deployment-http-server-ingress").get();
    assertThat(stored.getSpec().getIstio().getRules().get(0).getTo().get(0).getOperation().getPorts())
        .containsExactly("18080");
  }

  @Test
  void proposalsWithInferredWorkloadsKeepTheirAnnotationOnTheApiServer() throws Exception {
    Path out = dir.resolve("multinode");
    Path capture = CliRun.repoRoot().resolve("samples/captures/hubble-multinode.jsonl");
    assertThat(CliRun.run("learn", "--input", capture.toString(), "--output-dir", out.toString()).exitCode()).isZero();
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata().build())
        .create();

    assertThat(apply(out)).hasSize(5);
    WorkloadNetworkPolicyProposal stored = admin.resources(WorkloadNetworkPolicyProposal.class).inNamespace("shop")
        .withName("deployment-worker-egress").get();
    assertThat(stored.getMetadata().getAnnotations())
        .containsEntry("networkenforcer.kubewarden.io/inferred-workloads", "shop/Deployment/worker");
  }

  /** Like {@code kubectl create -f DIR -R}: every file as written, no conversion on the way. */
  private static List<String> apply(Path dir) throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      List<Path> yaml = files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
      for (Path f : yaml) {
        admin.resource(Files.readString(f)).create();
      }
      return yaml.stream().map(f -> dir.relativize(f).toString().replace(".yaml", "")).toList();
    }
  }
}
