package io.kubewarden.networkenforcer.cli.ranges;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.chart.HelmChart;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.testing.CiliumCrds;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's ranges are read from a real kube-apiserver: its own default ServiceCIDR (from
 * {@code --service-cluster-ip-range}) and one more, two Nodes' {@code spec.podCIDRs}, two
 * CiliumNodes (Cilium's published CRD) and Calico IPPools of both API groups (minimal structural
 * CRDs: Calico's are not fetched by the test tools; only {@code spec.cidr} is read).
 */
class ClusterRangeDiscoveryTest {
  /** The harness's --service-cluster-ip-range (test-support ClusterPki.SERVICE_RANGE). */
  private static final String DEFAULT_SERVICE_RANGE = "10.96.0.0/24";

  static KubeApiServer api;
  static KubernetesClient admin;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    api = KubeApiServer.builder().start();
    admin = api.client();
    // Cilium's own CRD (hack/tools/cilium-crds.sh): its schema admits spec.ipam.podCIDRs as read.
    CiliumCrds.installCiliumNode(admin, Duration.ofSeconds(60));
    install(crd("crd.projectcalico.org", "v1", "IPPool", "ippools"));
    install(crd("projectcalico.org", "v3", "IPPool", "ippools"));
    create(
        "networking.k8s.io/v1",
        "ServiceCIDR",
        "extra",
        Map.of("cidrs", List.of("10.97.0.0/24", "fd00:10:96::/112")));
    create(
        "v1",
        "Node",
        "node-a",
        Map.of(
            "podCIDR", "10.244.0.0/24", "podCIDRs", List.of("10.244.0.0/24", "fd00:10:244::/64")));
    create(
        "v1",
        "Node",
        "node-b",
        Map.of("podCIDR", "10.244.1.0/24", "podCIDRs", List.of("10.244.1.0/24")));
    create(
        "cilium.io/v2",
        "CiliumNode",
        "node-a",
        Map.of("ipam", Map.of("podCIDRs", List.of("10.0.1.0/24"))));
    create(
        "cilium.io/v2",
        "CiliumNode",
        "node-b",
        Map.of("ipam", Map.of("podCIDRs", List.of("10.0.2.0/24"))));
    // Calico's default pool covers both Nodes' IPv4 blocks.
    create(
        "crd.projectcalico.org/v1",
        "IPPool",
        "default-ipv4-ippool",
        Map.of("cidr", "10.244.0.0/16", "natOutgoing", true));
    create("projectcalico.org/v3", "IPPool", "extra-pool", Map.of("cidr", "192.168.0.0/16"));
    awaitDefaultServiceCidr();
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  void everySourceIsReadExactly() {
    DiscoveredRanges found = new ClusterRangeDiscovery(admin, "test").discover();

    assertThat(found.found())
        .containsExactly(
            // Listed by name: "extra" before the API server's own "kubernetes".
            entry(
                RangeSource.SERVICE_CIDR,
                List.of("10.97.0.0/24", "fd00:10:96::/112", DEFAULT_SERVICE_RANGE)),
            entry(RangeSource.NODE, List.of("10.244.0.0/24", "fd00:10:244::/64", "10.244.1.0/24")),
            entry(RangeSource.CILIUM_NODE, List.of("10.0.1.0/24", "10.0.2.0/24")),
            entry(RangeSource.CALICO_IPPOOL_CRD, List.of("10.244.0.0/16")),
            entry(RangeSource.CALICO_IPPOOL, List.of("192.168.0.0/16")));
    assertThat(found.unavailable()).isEmpty();

    // Configured first and kept; the Nodes' IPv4 blocks lie in Calico's pool and add nothing.
    assertThat(found.mergedWith(List.of("172.16.0.0/12", "10.97.0.0/16")))
        .containsExactly(
            "172.16.0.0/12",
            "10.97.0.0/16",
            "fd00:10:96::/112",
            DEFAULT_SERVICE_RANGE,
            "fd00:10:244::/64",
            "10.0.1.0/24",
            "10.0.2.0/24",
            "10.244.0.0/16",
            "192.168.0.0/16");
    assertThat(found.describe(List.of()))
        .startsWith("configured none; ServiceCIDR networking.k8s.io/v1 spec.cidrs 10.97.0.0/24, ")
        .contains("; Node v1 spec.podCIDRs 10.244.0.0/24, fd00:10:244::/64, 10.244.1.0/24; ")
        .contains("; CiliumNode cilium.io/v2 spec.ipam.podCIDRs 10.0.1.0/24, 10.0.2.0/24; ")
        .endsWith("; IPPool projectcalico.org/v3 spec.cidr 192.168.0.0/16");
  }

  /** The chart's ClusterRole is exactly enough: every source read, nothing refused. */
  @Test
  void theChartsClusterRoleReadsEverySource() throws Exception {
    JsonNode rendered =
        HelmChart.render(
                HelmChart.values("mode", "distributed", "kafka.bootstrapServers", "k:9092"))
            .get("ClusterRole", HelmChart.FULLNAME + "-cluster-range-reader");
    ClusterRole role = Json.mapper().treeToValue(rendered, ClusterRole.class);
    role.getMetadata().setLabels(Map.of());
    admin.rbac().clusterRoles().resource(role).create();
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("range-reader")
                .endMetadata()
                .withNewRoleRef(
                    "rbac.authorization.k8s.io", "ClusterRole", role.getMetadata().getName())
                .addNewSubject()
                .withKind("User")
                .withName("range-reader")
                .withApiGroup("rbac.authorization.k8s.io")
                .endSubject()
                .build())
        .create();
    DiscoveredRanges asAdmin = new ClusterRangeDiscovery(admin, "test").discover();
    try (KubernetesClient reader = api.clientFor("range-reader");
        KubernetesClient nobody = api.clientFor("nobody")) {
      DiscoveredRanges granted = awaitGranted(reader);
      assertThat(granted).isEqualTo(asAdmin);

      // Without the grant every source is refused, said, and nothing fails.
      DiscoveredRanges refused = new ClusterRangeDiscovery(nobody, "test").discover();
      assertThat(refused.found()).isEmpty();
      assertThat(refused.unavailable())
          .containsEntry(RangeSource.NODE, "forbidden (list /nodes)")
          .containsEntry(RangeSource.CILIUM_NODE, "forbidden (list cilium.io/ciliumnodes)")
          .hasSize(RangeSource.values().length);
      assertThat(refused.mergedWith(List.of("10.1.0.0/16"))).containsExactly("10.1.0.0/16");
    }
  }

  /**
   * {@code learn --discover-cluster-cidrs}: the rule widened from eleven outside addresses excepts
   * exactly the cluster's ranges, where without it it was {@code 0.0.0.0/0} without except.
   */
  @Test
  void learnExceptsTheDiscoveredRangesFromTheWidenedRule() throws Exception {
    Path capture = captureWithElevenOutsideAddresses();
    CliRun bare = learn(capture, dir.resolve("bare"));
    assertThat(bare.exitCode()).as(bare.err()).isZero();
    String bareEgress =
        Files.readString(dir.resolve("bare/demo/deployment-http-client-egress.yaml"));
    assertThat(bareEgress).contains("cidr: \"0.0.0.0/0\"").doesNotContain("except");
    assertThat(bare.out()).contains("or --discover-cluster-cidrs to read them from the cluster");

    CliRun run =
        learn(
            capture,
            dir.resolve("discovered"),
            "--discover-cluster-cidrs",
            "--kubeconfig",
            api.kubeconfig().toString(),
            "--cluster-cidr",
            "172.16.0.0/12");
    assertThat(run.exitCode()).as(run.err()).isZero();
    String egress =
        Files.readString(dir.resolve("discovered/demo/deployment-http-client-egress.yaml"));
    assertThat(egress)
        .contains(
            String.join(
                "\n",
                "      - ipBlock:",
                "          cidr: \"0.0.0.0/0\"",
                "          except:",
                "          - \"172.16.0.0/12\"",
                "          - \"10.97.0.0/24\"",
                "          - \"" + DEFAULT_SERVICE_RANGE + "\"",
                "          - \"10.0.1.0/24\"",
                "          - \"10.0.2.0/24\"",
                "          - \"10.244.0.0/16\"",
                "          - \"192.168.0.0/16\"",
                "      - ipBlock:",
                "          cidr: \"::/0\"",
                "          except:",
                "          - \"fd00:10:96::/112\"",
                "          - \"fd00:10:244::/64\""));
    assertThat(run.out()).doesNotContain("outside rules without except");
    assertThat(run.err())
        .contains("cluster ranges: configured [172.16.0.0/12]; ServiceCIDR networking.k8s.io/v1")
        .contains("IPPool crd.projectcalico.org/v1 spec.cidr 10.244.0.0/16");

    // A cluster named without asking for its ranges: said, not ignored.
    CliRun ignored =
        learn(capture, dir.resolve("ignored"), "--kubeconfig", api.kubeconfig().toString());
    assertThat(ignored.exitCode()).isEqualTo(2);
    assertThat(ignored.err()).contains("add --discover-cluster-cidrs or drop them");

    // An unreachable API server fails before the capture is read, naming it.
    Path gone = dir.resolve("gone.kubeconfig");
    Files.writeString(
        gone, Files.readString(api.kubeconfig()).replace(api.url(), "https://127.0.0.1:1"));
    CliRun unreachable =
        learn(
            capture,
            dir.resolve("unreachable"),
            "--discover-cluster-cidrs",
            "--kubeconfig",
            gone.toString());
    assertThat(unreachable.exitCode()).isEqualTo(2);
    assertThat(unreachable.err())
        .contains("cannot discover the cluster ranges from kubeconfig " + gone)
        .contains("give them with --cluster-cidr instead");
  }

  private CliRun learn(Path capture, Path out, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "learn",
                "-f",
                capture.toString(),
                "--cluster-state",
                sample("cluster-state.json").toString(),
                "--output-dir",
                out.toString()));
    args.addAll(List.of(more));
    return CliRun.run(args.toArray(String[]::new));
  }

  /** The basic sample (http-client calls api.stripe.com on TCP 443) and ten more addresses. */
  private Path captureWithElevenOutsideAddresses() throws Exception {
    String stripe = "142.251.209.46";
    List<String> lines = new ArrayList<>(Files.readAllLines(sample("hubble-flows.jsonl")));
    String call =
        lines.stream()
            .filter(l -> l.contains("\"destination\":\"" + stripe + "\""))
            .findFirst()
            .orElseThrow();
    for (int i = 1; i <= 10; i++) {
      lines.add(
          call.replace(stripe, "52.216.8." + i)
              .replace("15:40:10.000000000Z", "15:41:%02d.000000000Z".formatted(i)));
    }
    Path file = dir.resolve("capture.jsonl");
    Files.write(file, lines);
    return file;
  }

  /** RBAC reaches the authorizer's cache shortly after the binding is created. */
  private static DiscoveredRanges awaitGranted(KubernetesClient reader)
      throws InterruptedException {
    Instant deadline = Instant.now().plusSeconds(30);
    DiscoveredRanges granted = new ClusterRangeDiscovery(reader, "test").discover();
    while (!granted.unavailable().isEmpty() && Instant.now().isBefore(deadline)) {
      Thread.sleep(100);
      granted = new ClusterRangeDiscovery(reader, "test").discover();
    }
    return granted;
  }

  private static void awaitDefaultServiceCidr() {
    Instant deadline = Instant.now().plusSeconds(60);
    while (admin
            .genericKubernetesResources("networking.k8s.io/v1", "ServiceCIDR")
            .withName("kubernetes")
            .get()
        == null) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("the API server created no default ServiceCIDR within 60 s");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static void create(
      String apiVersion, String kind, String name, Map<String, Object> spec) {
    GenericKubernetesResource object =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(apiVersion)
            .withKind(kind)
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .addToAdditionalProperties("spec", spec)
            .build();
    admin.resource(object).create();
  }

  private static CustomResourceDefinition crd(
      String group, String version, String kind, String plural) {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName(plural + "." + group)
        .endMetadata()
        .withNewSpec()
        .withGroup(group)
        .withScope("Cluster")
        .withNewNames()
        .withKind(kind)
        .withListKind(kind + "List")
        .withPlural(plural)
        .withSingular(kind.toLowerCase(Locale.ROOT))
        .endNames()
        .addNewVersion()
        .withName(version)
        .withServed(true)
        .withStorage(true)
        .withNewSchema()
        .withNewOpenAPIV3Schema()
        .withType("object")
        .withXKubernetesPreserveUnknownFields(true)
        .endOpenAPIV3Schema()
        .endSchema()
        .endVersion()
        .endSpec()
        .build();
  }

  private static void install(CustomResourceDefinition crd) {
    admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    admin
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(crd.getMetadata().getName())
        .waitUntilCondition(ProjectCrds::established, 60, TimeUnit.SECONDS);
  }
}
