package io.kubewarden.networkenforcer.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helm install}, {@code helm upgrade} and {@code helm uninstall} with the real helm against
 * the real API server: the CRDs are templates, so an upgrade that changes a CRD changes it in the
 * cluster (helm skips {@code crds/} on upgrade), and uninstall keeps them ({@code
 * helm.sh/resource-policy: keep}) together with every user's policies.
 */
class ChartUpgradeTest {
  private static final String RELEASE = "ne-up";
  private static final String NAMESPACE = "ne-upgrade";
  private static final String WNPP_CRD =
      "workloadnetworkpolicyproposals.networkenforcer.kubewarden.io";

  /** A values set whose objects the bare API server serves (no cert-manager, no Strimzi). */
  private static final List<String> VALUES =
      List.of(
          "--set",
          "controller.provider.name=cilium",
          "--set",
          "controller.provider.cilium.tls.mode=insecure",
          "--set",
          "telemetry.collectorStrategy=none");

  private static KubeApiServer api;
  private static KubernetesClient client;

  @TempDir static Path work;

  @BeforeAll
  static void start() {
    api = KubeApiServer.builder().start();
    client = api.client();
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  void anUpgradeThatChangesACrdChangesItAndUninstallKeepsIt() throws Exception {
    // The "previous release": the same chart whose proposal CRD named the Backend column
    // differently.
    Path previous = copyChart(work.resolve("previous"));
    Path crd = previous.resolve("templates/crds/" + WNPP_CRD + "-v1.yml");
    String text = Files.readString(crd, StandardCharsets.UTF_8);
    assertThat(text).contains("name: Backend");
    Files.writeString(
        crd, text.replace("name: Backend", "name: OldBackend"), StandardCharsets.UTF_8);

    helm("install", RELEASE, previous.toString());
    assertThat(columns()).contains("OldBackend").doesNotContain("Backend");

    helm("upgrade", RELEASE, HelmChart.chartDir().toString());
    assertThat(columns()).contains("Backend").doesNotContain("OldBackend");

    // No kubelet here to run the post-delete hook's Job (ChartUninstallHookTest, and k8s-writer's
    // ApiServerLearningResetFinalizerTest runs its command); helm would wait for it in vain.
    helm("uninstall", RELEASE, "--no-hooks");
    assertThat(client.apps().statefulSets().inNamespace(NAMESPACE).list().getItems())
        .as("release removed")
        .isEmpty();
    assertThat(client.apiextensions().v1().customResourceDefinitions().withName(WNPP_CRD).get())
        .as("CRD kept on uninstall")
        .isNotNull();
    assertThat(
            client
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("workloadnetworkpolicies.networkenforcer.kubewarden.io")
                .get())
        .isNotNull();
  }

  @Test
  void theInstallNotesSayWhenNoStorageClassIsTheDefault() {
    // A cluster with a StorageClass, none of them the default: the standalone claim would stay
    // Pending.
    client
        .storage()
        .v1()
        .storageClasses()
        .resource(
            new StorageClassBuilder()
                .withNewMetadata()
                .withName("slow")
                .endMetadata()
                .withProvisioner("example.com/slow")
                .build())
        .create();
    try {
      HelmChart.Result pending = dryRunInstall();
      assertThat(pending.stdout())
          .contains("No default StorageClass: the standalone pod stays Pending")
          .contains("standalone.persistence.enabled=false");

      client
          .storage()
          .v1()
          .storageClasses()
          .withName("slow")
          .edit(
              sc -> {
                sc.getMetadata()
                    .setAnnotations(Map.of("storageclass.kubernetes.io/is-default-class", "true"));
                return sc;
              });
      assertThat(dryRunInstall().stdout())
          .contains("Nothing is enforced until you promote a proposal")
          .doesNotContain("No default StorageClass");
    } finally {
      client.storage().v1().storageClasses().withName("slow").delete();
    }
  }

  /** {@code helm install --dry-run=server}: the notes, with lookups answered by the API server. */
  private static HelmChart.Result dryRunInstall() {
    // The release of the other test: the CRDs it leaves (kept on uninstall) belong to it, no
    // conflict.
    List<String> all =
        new ArrayList<>(
            List.of(
                "install",
                RELEASE,
                HelmChart.chartDir().toString(),
                "--namespace",
                NAMESPACE,
                "--dry-run=server"));
    all.addAll(VALUES);
    HelmChart.Result result =
        HelmChart.against(api.kubeconfig(), work.resolve("helm-home"), all.toArray(String[]::new));
    assertThat(result.exitCode())
        .as("helm install --dry-run=server:\n%s%s", result.stdout(), result.stderr())
        .isZero();
    return result;
  }

  private static List<String> columns() {
    CustomResourceDefinition crd =
        client.apiextensions().v1().customResourceDefinitions().withName(WNPP_CRD).get();
    assertThat(crd).as(WNPP_CRD).isNotNull();
    return crd.getSpec().getVersions().get(0).getAdditionalPrinterColumns().stream()
        .map(CustomResourceColumnDefinition::getName)
        .toList();
  }

  private static void helm(String verb, String... args) {
    List<String> all = new ArrayList<>(List.of(verb));
    all.addAll(List.of(args));
    all.addAll(List.of("--namespace", NAMESPACE));
    if (!verb.equals("uninstall")) {
      all.addAll(VALUES);
    }
    HelmChart.Result result =
        HelmChart.against(api.kubeconfig(), work.resolve("helm-home"), all.toArray(String[]::new));
    assertThat(result.exitCode())
        .as("helm %s:\n%s%s", verb, result.stdout(), result.stderr())
        .isZero();
  }

  private static Path copyChart(Path target) throws IOException {
    Path source = HelmChart.chartDir();
    try (Stream<Path> files = Files.walk(source)) {
      for (Path file : files.toList()) {
        Path to = target.resolve(source.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(to);
        } else {
          Files.copy(file, to, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return target;
  }
}
