package io.kubewarden.networkenforcer.cli.learn;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.evaluation.CiliumPolicyEvaluator;
import io.kubewarden.networkenforcer.common.evaluation.Decision;
import io.kubewarden.networkenforcer.common.evaluation.NetworkPolicyEvaluator;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.testing.CiliumCrds;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import io.kubewarden.networkenforcer.writer.rendering.CiliumNetworkPolicies;
import io.kubewarden.networkenforcer.writer.rendering.NetworkPolicies;
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

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    api = KubeApiServer.builder().start();
    admin = api.client();
    ProjectCrds.install(admin, Duration.ofSeconds(60));
    CiliumCrds.installCiliumNetworkPolicy(admin, Duration.ofSeconds(60));
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
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
    assertThat(
            CliRun.run(
                    "learn",
                    "--input",
                    sample("hubble-flows.jsonl").toString(),
                    "--output-dir",
                    kubernetes.toString())
                .exitCode())
        .isZero();
    assertThat(
            CliRun.run(
                    "learn",
                    "--input",
                    sample("ztunnel.jsonl").toString(),
                    "--cluster-state",
                    sample("cluster-state.json").toString(),
                    "--output-dir",
                    istio.toString())
                .exitCode())
        .isZero();

    Map<String, WorkloadNetworkPolicyProposal> learned = LearnedProposals.read(kubernetes);
    assertThat(learned).hasSize(3);
    apply(kubernetes);
    for (WorkloadNetworkPolicyProposal p : learned.values()) {
      WorkloadNetworkPolicyProposal stored =
          admin
              .resources(WorkloadNetworkPolicyProposal.class)
              .inNamespace(p.getMetadata().getNamespace())
              .withName(p.getMetadata().getName())
              .get();
      assertThat(stored).as(p.getMetadata().getName()).isNotNull();
      assertThat(stored.getSpec().sameAllowListAs(p.getSpec()))
          .as(p.getMetadata().getName())
          .isTrue();
    }

    // The Istio proposal has the same name as the Kubernetes one: apply it in place of it.
    admin
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace("demo")
        .withName("deployment-http-server-ingress")
        .delete();
    List<String> applied = apply(istio);
    assertThat(applied).containsExactly("demo/deployment-http-server-ingress");
    WorkloadNetworkPolicyProposal stored =
        admin
            .resources(WorkloadNetworkPolicyProposal.class)
            .inNamespace("demo")
            .withName("deployment-http-server-ingress")
            .get();
    assertThat(
            stored.getSpec().getIstio().getRules().get(0).getTo().get(0).getOperation().getPorts())
        .containsExactly("18080");
  }

  /**
   * The product's promise for outside calls: the learned egress proposal of http-client, promoted
   * to protect, renders (by the writer's own rendering) a NetworkPolicy the API server accepts,
   * with the learned ipBlock, and the call to api.stripe.com stays allowed by it.
   */
  @Test
  void aPromotedEgressProposalKeepsTheExternalCallAllowed() {
    Path kubernetes = dir.resolve("external");
    assertThat(
            CliRun.run(
                    "learn",
                    "--input",
                    sample("hubble-flows.jsonl").toString(),
                    "--cluster-state",
                    sample("cluster-state.json").toString(),
                    "--output-dir",
                    kubernetes.toString())
                .exitCode())
        .isZero();
    WorkloadNetworkPolicyProposal proposal =
        LearnedProposals.read(kubernetes).get("demo/deployment-http-client-egress");

    WorkloadNetworkPolicy wnp = new WorkloadNetworkPolicy();
    wnp.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-http-client-egress")
            .withNamespace("demo")
            .build());
    WorkloadNetworkPolicySpec spec = new WorkloadNetworkPolicySpec();
    spec.copySharedFrom(proposal.getSpec());
    spec.setMode(Mode.protect);
    wnp.setSpec(spec);
    WorkloadNetworkPolicy created = admin.resource(wnp).create();

    NetworkPolicy stored = admin.resource(NetworkPolicies.desired(created)).create();
    assertThat(stored.getSpec().getEgress())
        .anySatisfy(
            rule -> {
              assertThat(rule.getTo())
                  .singleElement()
                  .satisfies(
                      peer ->
                          assertThat(peer.getIpBlock().getCidr()).isEqualTo("142.251.209.46/32"));
              assertThat(rule.getPorts())
                  .singleElement()
                  .satisfies(
                      port -> {
                        assertThat(port.getProtocol()).isEqualTo("TCP");
                        assertThat(port.getPort().getIntVal()).isEqualTo(443);
                      });
            });

    FlowEndpoint client =
        FlowEndpoint.builder()
            .namespace("demo")
            .workload(WorkloadKind.Deployment, "http-client")
            .podLabels(Map.of("app", "http-client", "pod-template-hash", "29e797ec96"))
            .namespaceLabels(Map.of("kubernetes.io/metadata.name", "demo"))
            .ip("10.244.2.244")
            .build();
    FlowEndpoint stripe =
        FlowEndpoint.outsideCluster(
            "142.251.209.46", ExternalEndpoint.of(List.of("api.stripe.com")));
    assertThat(
            NetworkPolicyEvaluator.evaluate(
                stored.getSpec(), Direction.Egress, client, stripe, Protocol.TCP, 443))
        .isEqualTo(Decision.ALLOWED);
    // ... and nothing else outside: another address on the same port is denied.
    assertThat(
            NetworkPolicyEvaluator.evaluate(
                stored.getSpec(),
                Direction.Egress,
                client,
                FlowEndpoint.outsideCluster("142.251.209.47", null),
                Protocol.TCP,
                443))
        .isEqualTo(Decision.DENIED);
  }

  /**
   * {@code learn --backend cilium}: the proposals are accepted by our CRDs as written, and the
   * promoted egress proposal renders (by the writer's own rendering) a CiliumNetworkPolicy that
   * Cilium's published CRD admits, which allows api.stripe.com at any of its addresses and no
   * address without a name.
   */
  @Test
  void ciliumProposalsAndTheirCiliumNetworkPolicyAreAcceptedByTheApiServer() throws Exception {
    Path cilium = dir.resolve("cilium");
    assertThat(
            CliRun.run(
                    "learn",
                    "--input",
                    sample("hubble-flows.jsonl").toString(),
                    "--cluster-state",
                    sample("cluster-state.json").toString(),
                    "--backend",
                    "cilium",
                    "--output-dir",
                    cilium.toString())
                .exitCode())
        .isZero();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("cilium").endMetadata().build())
        .create();
    Map<String, WorkloadNetworkPolicyProposal> learned = LearnedProposals.read(cilium);
    for (WorkloadNetworkPolicyProposal p : learned.values()) {
      p.getMetadata().setNamespace("cilium"); // beside the kubernetes proposals of the same names
      p.setStatus(null);
      WorkloadNetworkPolicyProposal stored = admin.resource(p).create();
      assertThat(stored.getSpec().sameAllowListAs(p.getSpec()))
          .as(p.getMetadata().getName())
          .isTrue();
    }

    WorkloadNetworkPolicyProposal proposal = learned.get("demo/deployment-http-client-egress");
    WorkloadNetworkPolicy wnp = new WorkloadNetworkPolicy();
    wnp.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-http-client-egress")
            .withNamespace("cilium")
            .build());
    WorkloadNetworkPolicySpec spec = new WorkloadNetworkPolicySpec();
    spec.copySharedFrom(proposal.getSpec());
    spec.setMode(Mode.protect);
    wnp.setSpec(spec);
    WorkloadNetworkPolicy created = admin.resource(wnp).create();

    GenericKubernetesResource stored =
        admin
            .genericKubernetesResources(CiliumNetworkPolicies.CONTEXT)
            .inNamespace("cilium")
            .resource(CiliumNetworkPolicies.desired(created))
            .create();
    CiliumPolicy enforced =
        Json.mapper()
            .convertValue(stored.getAdditionalProperties().get("spec"), CiliumPolicy.class);
    assertThat(enforced).isEqualTo(proposal.getSpec().getCilium());

    FlowEndpoint client =
        FlowEndpoint.builder()
            .namespace("demo")
            .workload(WorkloadKind.Deployment, "http-client")
            .podLabels(Map.of("app", "http-client", "pod-template-hash", "29e797ec96"))
            .ip("10.244.2.244")
            .build();
    for (String address : List.of("142.251.209.46", "142.251.209.99")) {
      assertThat(
              CiliumPolicyEvaluator.evaluate(
                  enforced,
                  Direction.Egress,
                  client,
                  FlowEndpoint.outsideCluster(
                      address, ExternalEndpoint.of(List.of("api.stripe.com"))),
                  Protocol.TCP,
                  443))
          .as(address)
          .isEqualTo(Decision.ALLOWED);
    }
    assertThat(
            CiliumPolicyEvaluator.evaluate(
                enforced,
                Direction.Egress,
                client,
                FlowEndpoint.outsideCluster("142.251.209.46", null),
                Protocol.TCP,
                443))
        .isEqualTo(Decision.DENIED);
  }

  /**
   * {@code learn --backend cilium --cilium-entities}: the rule for every address outside the
   * cluster is {@code toEntities: [world]}, which our CRDs keep and Cilium's published CRD admits.
   */
  @Test
  void ciliumEntitiesAreAcceptedByBothCrds() throws Exception {
    Path entities = dir.resolve("entities");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            LearnCiliumTest.captureWithNamelessAddresses(
                    Files.createDirectories(dir.resolve("nameless")))
                .toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--backend",
            "cilium",
            "--cilium-entities",
            "--output-dir",
            entities.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("entities").endMetadata().build())
        .create();
    WorkloadNetworkPolicyProposal proposal =
        LearnedProposals.read(entities).get("demo/deployment-http-client-egress");
    proposal.getMetadata().setNamespace("entities");
    proposal.setStatus(null);
    WorkloadNetworkPolicyProposal storedProposal = admin.resource(proposal).create();
    assertThat(storedProposal.getSpec().getCilium().getEgress())
        .filteredOn(r -> r.getToEntities() != null)
        .singleElement()
        .satisfies(r -> assertThat(r.getToEntities()).containsExactly("world"));

    WorkloadNetworkPolicy wnp = new WorkloadNetworkPolicy();
    wnp.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-http-client-egress")
            .withNamespace("entities")
            .build());
    WorkloadNetworkPolicySpec spec = new WorkloadNetworkPolicySpec();
    spec.copySharedFrom(storedProposal.getSpec());
    spec.setMode(Mode.protect);
    wnp.setSpec(spec);
    GenericKubernetesResource stored =
        admin
            .genericKubernetesResources(CiliumNetworkPolicies.CONTEXT)
            .inNamespace("entities")
            .resource(CiliumNetworkPolicies.desired(admin.resource(wnp).create()))
            .create();
    CiliumPolicy enforced =
        Json.mapper()
            .convertValue(stored.getAdditionalProperties().get("spec"), CiliumPolicy.class);
    assertThat(enforced).isEqualTo(proposal.getSpec().getCilium());

    FlowEndpoint client =
        FlowEndpoint.builder()
            .namespace("demo")
            .workload(WorkloadKind.Deployment, "http-client")
            .podLabels(Map.of("app", "http-client"))
            .build();
    // Any address outside, seen or not, on the learned port; no other port.
    assertThat(
            CiliumPolicyEvaluator.evaluate(
                enforced,
                Direction.Egress,
                client,
                FlowEndpoint.outsideCluster("192.0.2.200", null),
                Protocol.TCP,
                8443))
        .isEqualTo(Decision.ALLOWED);
    assertThat(
            CiliumPolicyEvaluator.evaluate(
                enforced,
                Direction.Egress,
                client,
                FlowEndpoint.outsideCluster("192.0.2.200", null),
                Protocol.TCP,
                8444))
        .isEqualTo(Decision.DENIED);
  }

  @Test
  void proposalsWithInferredWorkloadsKeepTheirAnnotationOnTheApiServer() throws Exception {
    Path out = dir.resolve("multinode");
    Path capture = CliRun.repoRoot().resolve("samples/captures/hubble-multinode.jsonl");
    assertThat(
            CliRun.run("learn", "--input", capture.toString(), "--output-dir", out.toString())
                .exitCode())
        .isZero();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata().build())
        .create();

    assertThat(apply(out)).hasSize(5);
    WorkloadNetworkPolicyProposal stored =
        admin
            .resources(WorkloadNetworkPolicyProposal.class)
            .inNamespace("shop")
            .withName("deployment-worker-egress")
            .get();
    assertThat(stored.getMetadata().getAnnotations())
        .containsEntry(
            "networkenforcer.kubewarden.io/inferred-workloads", "shop/Deployment/worker");
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
