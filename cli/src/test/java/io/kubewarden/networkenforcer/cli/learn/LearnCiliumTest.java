package io.kubewarden.networkenforcer.cli.learn;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Backend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code learn --backend cilium} over the basic Hubble sample: the same three targets as the
 * kubernetes backend, written as CiliumNetworkPolicy specs, the call to api.stripe.com by name.
 */
class LearnCiliumTest {
  /** The spec of http-client's egress proposal, byte for byte as `learn` writes it. */
  static final String CLIENT_EGRESS_SPEC =
      """
      spec:
        backend: "cilium"
        cilium:
          endpointSelector:
            matchLabels:
              app: "http-client"
          egress:
          - toEndpoints:
            - matchLabels:
                app: "http-server"
                "k8s:io.kubernetes.pod.namespace": "demo"
            toPorts:
            - ports:
              - port: "18080"
                protocol: "TCP"
              - port: "18081"
                protocol: "UDP"
          - toFQDNs:
            - matchName: "api.stripe.com"
            toPorts:
            - ports:
              - port: "443"
                protocol: "TCP"
          - toEndpoints:
            - matchLabels:
                "k8s:io.kubernetes.pod.namespace": "kube-system"
                "k8s:k8s-app": "kube-dns"
            toPorts:
            - ports:
              - port: "53"
                protocol: "UDP"
              - port: "53"
                protocol: "TCP"
              rules:
                dns:
                - matchPattern: "*"
        targetRef:
          kind: "Deployment"
          name: "http-client"
        direction: "Egress"
      status:
        evidence:
      """;

  @TempDir Path out;

  @Test
  void theSampleIsLearnedAsCiliumNetworkPoliciesWithTheExternalCallByName() throws Exception {
    CliRun run =
        CliRun.run(
            "learn",
            "-f",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--backend",
            "cilium",
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("(hubble, backend cilium,").contains("proposals written:   3");
    String egress = Files.readString(out.resolve("demo/deployment-http-client-egress.yaml"));
    assertThat(egress).contains(CLIENT_EGRESS_SPEC);
    // The call's evidence is kept by name (whatever address it had), pointing at the name rule.
    assertThat(egress)
        .contains(
            """
              - rule: 1
                peer: "dns:api.stripe.com"
                ports:
                - protocol: "TCP"
                  port: "443"
            """);
    // The learned lookups to CoreDNS are the DNS rule's evidence, not a rule of their own: three
    // rules, each with evidence.
    assertThat(egress)
        .contains(
            """
              - rule: 2
                peer: "kube-system/Deployment/coredns"
            """);
    assertThat(egress).contains("ruleCount: 3");

    Map<String, WorkloadNetworkPolicyProposal> learned = LearnedProposals.read(out);
    assertThat(learned)
        .containsOnlyKeys(
            "demo/deployment-http-client-egress",
            "demo/deployment-http-server-ingress",
            "kube-system/deployment-coredns-ingress");
    assertThat(learned.values())
        .allSatisfy(
            p -> {
              assertThat(p.getSpec().getBackend()).isEqualTo(Backend.cilium);
              assertThat(p.getSpec().getKubernetes()).isNull();
            });
    assertThat(
            learned.get("demo/deployment-http-server-ingress").getSpec().getCilium().getIngress())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.getFromEndpoints().get(0).getMatchLabels())
                    .containsExactlyInAnyOrderEntriesOf(
                        Map.of("app", "http-client", "k8s:io.kubernetes.pod.namespace", "demo")));
  }

  /**
   * {@code --learn-l7-http} over the multi-node capture: the GET /orders Hubble's L7 record shows
   * on backend's 9090 becomes that port's HTTP rule; 8080, which no L7 record reached, stays L4.
   */
  @Test
  void l7HttpLearningWritesTheRequestsOfAnIngressPort() throws Exception {
    CliRun run =
        CliRun.run(
            "learn",
            "-f",
            CliRun.repoRoot().resolve("samples/captures/hubble-multinode.jsonl").toString(),
            "--backend",
            "cilium",
            "--learn-l7-http",
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(Files.readString(out.resolve("shop/deployment-backend-ingress.yaml")))
        .contains(
            """
                  toPorts:
                  - ports:
                    - port: "8080"
                      protocol: "TCP"
                  - ports:
                    - port: "9090"
                      protocol: "TCP"
                    rules:
                      http:
                      - method: "GET"
                        path: "^/orders$"
                - fromEndpoints:
            """);
    assertThat(Files.readString(out.resolve("shop/statefulset-db-ingress.yaml")))
        .doesNotContain("rules:");
  }

  @Test
  void theCiliumBackendNeedsTheCiliumProvider() {
    CliRun run =
        CliRun.run(
            "learn",
            "-f",
            sample("goldmane-flows.jsonl").toString(),
            "--backend",
            "cilium",
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("the calico provider learns the kubernetes backend only")
        .doesNotContain("\tat ");
    assertThat(out).isEmptyDirectory();
  }

  /**
   * The sample plus calls from http-client to eleven outside addresses without a DNS name on TCP
   * 8443: above the widening threshold, so learned as the one rule for everything outside.
   */
  static Path captureWithNamelessAddresses(Path dir) throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(sample("hubble-flows.jsonl")));
    String stripeCall =
        lines.stream().filter(l -> l.contains("\"142.251.209.46\"")).findFirst().orElseThrow();
    for (int i = 1; i <= 11; i++) {
      lines.add(
          stripeCall
              .replace("142.251.209.46", "198.51.100." + i)
              .replace("\"destination_names\":[\"api.stripe.com\"],", "")
              .replace("\"destination_port\":443", "\"destination_port\":8443")
              .replace("15:40:10.000000000Z", "15:41:%02d.000000000Z".formatted(i)));
    }
    Path file = dir.resolve("nameless.jsonl");
    Files.write(file, lines);
    return file;
  }

  @Test
  void withEntitiesEveryAddressOutsideTheClusterIsWorld() throws Exception {
    Path capture = captureWithNamelessAddresses(Files.createDirectories(out.resolve("capture")));
    CliRun run =
        CliRun.run(
            "learn",
            "-f",
            capture.toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--backend",
            "cilium",
            "--cilium-entities",
            "--output-dir",
            out.resolve("entities").toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    String egress =
        Files.readString(out.resolve("entities/demo/deployment-http-client-egress.yaml"));
    assertThat(egress)
        .contains(
            String.join(
                "\n",
                "    - toEntities:",
                "      - \"world\"",
                "      toPorts:",
                "      - ports:",
                "        - port: \"8443\"",
                "          protocol: \"TCP\""))
        .contains("- matchName: \"api.stripe.com\"")
        .doesNotContain("0.0.0.0/0")
        .doesNotContain("198.51.100.");
    // world needs no cluster range: no warning that the rule excepts nothing.
    assertThat(run.out()).doesNotContain("outside rules without except");

    // Without the option and without --cluster-cidr: 0.0.0.0/0, and the warning names the option.
    CliRun plain =
        CliRun.run(
            "learn",
            "-f",
            capture.toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--backend",
            "cilium",
            "--output-dir",
            out.resolve("cidrs").toString());
    assertThat(plain.exitCode()).as(plain.err()).isZero();
    assertThat(Files.readString(out.resolve("cidrs/demo/deployment-http-client-egress.yaml")))
        .contains("- \"0.0.0.0/0\"")
        .doesNotContain("toEntities");
    assertThat(plain.out())
        .contains("outside rules without except: 1 proposals")
        .contains("or --cilium-entities to allow Cilium's entity world instead");
  }

  @Test
  void entitiesNeedTheCiliumBackend() {
    CliRun run =
        CliRun.run(
            "learn",
            "-f",
            sample("hubble-flows.jsonl").toString(),
            "--cilium-entities",
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains(
            "Cilium entities are rules of the cilium backend; backend 'kubernetes' has none: drop"
                + " --cilium-entities or choose --backend cilium")
        .doesNotContain("\tat ");
    assertThat(out).isEmptyDirectory();
  }
}
