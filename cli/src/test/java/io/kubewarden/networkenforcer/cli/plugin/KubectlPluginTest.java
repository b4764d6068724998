package io.kubewarden.networkenforcer.cli.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.PolicyFixtures;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.KubeTools;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubectl enforcer}: the plugin script run as kubectl runs it, with the real kubectl against
 * a real kube-apiserver holding the project's CRDs, and its offline verbs running the
 * network-enforcer command (this build's classes, started as a process).
 */
class KubectlPluginTest {
  static final String PROPOSAL =
      """
      apiVersion: networkenforcer.kubewarden.io/v1alpha1
      kind: WorkloadNetworkPolicyProposal
      metadata: {name: deployment-http-server-ingress, namespace: demo}
      spec:
        backend: kubernetes
        targetRef: {kind: Deployment, name: http-server}
        direction: Ingress
        kubernetes:
          podSelector: {matchLabels: {app: http-server}}
          policyTypes: [Ingress]
          ingress:
          - from:
            - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: demo}}
              podSelector: {matchLabels: {app: http-client}}
            ports: [{protocol: TCP, port: 18080}, {protocol: UDP, port: 18081}]
      """;
  static final String POLICY =
      PolicyFixtures.promoted(PROPOSAL, "monitor").replace(", {protocol: UDP, port: 18081}]", "]");

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
    admin
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace("demo")
        .resource(Json.yaml().readValue(PROPOSAL, WorkloadNetworkPolicyProposal.class))
        .create();
    admin
        .resources(WorkloadNetworkPolicy.class)
        .inNamespace("demo")
        .resource(Json.yaml().readValue(POLICY, WorkloadNetworkPolicy.class))
        .create();
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  void listShowAndPromoteAProposal() throws Exception {
    Run list = plugin("list", "-A");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out().lines().toList()).hasSize(2);
    assertThat(list.out().lines().findFirst().orElseThrow())
        .matches("NAMESPACE +NAME +KIND +TARGET +DIRECTION +CONVERGED +REASON +PROMOTE");
    assertThat(list.out().lines().skip(1).findFirst().orElseThrow())
        .matches(
            "demo +deployment-http-server-ingress +Deployment +http-server +Ingress +<none> +<none> +<none>");

    Run show = plugin("show", "deployment-http-server-ingress", "-n", "demo");
    assertThat(show.code()).as(show.err()).isZero();
    assertThat(show.out()).contains("kind: WorkloadNetworkPolicyProposal").contains("port: 18081");

    Run promote = plugin("promote", "deployment-http-server-ingress", "-n", "demo");
    assertThat(promote.code()).as(promote.err()).isZero();
    assertThat(proposal().getMetadata().getLabels())
        .containsEntry("networkenforcer.kubewarden.io/promote", "monitor");
    assertThat(plugin("promote", "deployment-http-server-ingress", "protect", "-n", "demo").code())
        .isZero();
    assertThat(proposal().getMetadata().getLabels())
        .containsEntry("networkenforcer.kubewarden.io/promote", "protect");
    assertThat(plugin("list", "-n", "demo").out())
        .containsPattern("Ingress +<none> +<none> +protect\n");
  }

  @Test
  void acknowledgeAViolationAndSwitchAPolicysMode() throws Exception {
    Run ack =
        plugin("ack", "deployment-http-server-ingress", "7", "expected backup job", "-n", "demo");
    assertThat(ack.code()).as(ack.err()).isZero();
    assertThat(policy().getMetadata().getAnnotations())
        .containsEntry("networkenforcer.kubewarden.io/acknowledge-7", "expected backup job");

    Run mode = plugin("mode", "deployment-http-server-ingress", "protect", "-n", "demo");
    assertThat(mode.code()).as(mode.err()).isZero();
    assertThat(policy().getSpec().getMode().toString()).isEqualTo("protect");
    assertThat(plugin("policies", "-n", "demo").out()).containsPattern("Ingress +protect\n");

    Run bad = plugin("mode", "deployment-http-server-ingress", "loud", "-n", "demo");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("error: mode 'loud' must be monitor or protect");
    assertThat(plugin("ack", "deployment-http-server-ingress", "first", "x", "-n", "demo").code())
        .isEqualTo(2);
    assertThat(plugin("frobnicate").code()).isEqualTo(2);
    assertThat(plugin("help").out()).contains("kubectl enforcer list").contains("Examples:");
  }

  @Test
  void diffAndSimulateRunTheNetworkEnforcerCommand() throws Exception {
    // The proposal against the cluster's policy, through kubectl's flags: exit 3 and the added
    // port.
    Path proposals = Files.createDirectories(dir.resolve("proposals/demo"));
    Files.writeString(proposals.resolve("deployment-http-server-ingress.yaml"), PROPOSAL);
    Run diff =
        plugin(
            "diff",
            "-f",
            dir.resolve("proposals").toString(),
            "-n",
            "demo",
            "--kubeconfig",
            api.kubeconfig().toString(),
            "-o",
            "json");
    assertThat(diff.code()).as(diff.err()).isEqualTo(3);
    assertThat(diff.out()).as(diff.err()).startsWith("{");
    JsonNode report = Json.mapper().readTree(diff.out());
    assertThat(report.path("targets")).hasSize(1);
    assertThat(report.path("targets").get(0).path("added").toString())
        .isEqualTo(
            "[{\"peer\":\"namespace demo, pods {app=http-client}\",\"ports\":[\"UDP/18081\"]}]");

    Run simulate =
        plugin(
            "simulate",
            "-f",
            dir.resolve("proposals").toString(),
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString());
    assertThat(simulate.code()).as(simulate.err()).isZero();
    assertThat(simulate.out()).contains("Nothing would be denied.");
  }

  @Test
  void theKrewManifestNamesThePluginArchiveWithItsChecksum() throws Exception {
    Path plugin = CliRun.repoRoot().resolve("kubectl-plugin");
    Process p =
        new ProcessBuilder(
                "bash", plugin.resolve("package.sh").toString(), dir.toString(), "v0.4.0")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    // The committed manifest is the one the current script packages to (same archive bytes, same
    // sha256).
    assertThat(Files.readString(plugin.resolve("enforcer.yaml")))
        .isEqualTo(Files.readString(dir.resolve("enforcer.yaml")));
    JsonNode manifest = Json.yaml().readTree(dir.resolve("enforcer.yaml").toFile());
    assertThat(manifest.path("kind").asText()).isEqualTo("Plugin");
    assertThat(manifest.path("metadata").path("name").asText()).isEqualTo("enforcer");
    String sha = sha256(dir.resolve("kubectl-enforcer.tar.gz"));
    for (JsonNode platform : manifest.path("spec").path("platforms")) {
      assertThat(platform.path("sha256").asText()).isEqualTo(sha);
      assertThat(platform.path("bin").asText()).isEqualTo("kubectl-enforcer");
    }
    // The archive holds the script as it is in the repository, executable.
    Process list =
        new ProcessBuilder("tar", "-tvzf", dir.resolve("kubectl-enforcer.tar.gz").toString())
            .start();
    String listing = new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(list.waitFor()).isZero();
    assertThat(listing.lines().toList())
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("-rwxr-xr-x").endsWith(" kubectl-enforcer"));
  }

  private static String sha256(Path file) throws Exception {
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
    return HexFormat.of().formatHex(digest);
  }

  private static WorkloadNetworkPolicyProposal proposal() {
    return admin
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace("demo")
        .withName("deployment-http-server-ingress")
        .get();
  }

  private static WorkloadNetworkPolicy policy() {
    return admin
        .resources(WorkloadNetworkPolicy.class)
        .inNamespace("demo")
        .withName("deployment-http-server-ingress")
        .get();
  }

  record Run(int code, String out, String err) {}

  /**
   * Runs {@code kubectl enforcer ARGS} as kubectl does: the kubectl-enforcer executable on the
   * PATH.
   */
  private Run plugin(String... args) throws Exception {
    // The command's classes and dependencies as the jar has them: without the tests' logging setup.
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> !e.endsWith("test-classes"))
            .collect(Collectors.joining(File.pathSeparator));
    Path launcher =
        Files.writeString(
            dir.resolve("network-enforcer-" + System.nanoTime()),
            "#!/usr/bin/env bash\nexec '"
                + Path.of(System.getProperty("java.home"), "bin", "java")
                + "' -cp '"
                + classPath
                + "' io.kubewarden.networkenforcer.cli.NetworkEnforcerCommand "
                + "\"$@\"\n");
    launcher.toFile().setExecutable(true);
    Path kubectl = KubeTools.require("kubectl");
    List<String> command = new ArrayList<>(List.of(kubectl.toString(), "enforcer"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    Map<String, String> env = pb.environment();
    env.put(
        "PATH",
        CliRun.repoRoot().resolve("kubectl-plugin")
            + File.pathSeparator
            + kubectl.getParent()
            + File.pathSeparator
            + env.getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("KUBECONFIG", api.kubeconfig().toString());
    env.put("NETWORK_ENFORCER", launcher.toString());
    env.put("KUBECTL", kubectl.toString());
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Path err = dir.resolve("err-" + System.nanoTime());
    pb.redirectError(err.toFile());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("kubectl enforcer finished").isTrue();
    return new Run(p.exitValue(), out, Files.readString(err));
  }
}
