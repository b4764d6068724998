package io.kubewarden.networkenforcer.cli.diff;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.json.Json;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** diff offline, two files: exactly the peers and ports added and removed. */
class DiffCommandTest {
  @TempDir Path dir;

  @Test
  void listsExactlyThePeersAndPortsAddedAndRemoved() throws Exception {
    CliRun run =
        CliRun.run(
            "diff",
            "--proposal",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--policy",
            file("q.yaml", DiffFixtures.POLICY),
            "-o",
            "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    assertExactDifferences(Json.mapper().readTree(run.out()));
  }

  /** The differences of {@link DiffFixtures}, as the JSON report gives them. */
  static void assertExactDifferences(JsonNode report) {
    assertThat(report.path("different").asBoolean()).isTrue();
    assertThat(report.path("targets")).hasSize(1);
    JsonNode t = report.path("targets").get(0);
    assertThat(t.path("target").asText()).isEqualTo("demo/Deployment/http-server");
    assertThat(t.path("direction").asText()).isEqualTo("Ingress");
    assertThat(t.path("proposal").asText())
        .isEqualTo("WorkloadNetworkPolicyProposal demo/deployment-http-server-ingress");
    assertThat(t.path("policy").asText())
        .isEqualTo("WorkloadNetworkPolicy demo/deployment-http-server-ingress");
    assertThat(t.path("added").toString())
        .isEqualTo(
            "[{\"peer\":\"namespace demo, pods {app=http-client}\",\"ports\":[\"UDP/18081\"]},"
                + "{\"peer\":\"namespace other, pods {app=scraper}\",\"ports\":[\"TCP/9090\"]}]");
    assertThat(t.path("removed").toString())
        .isEqualTo(
            "[{\"peer\":\"namespace monitoring, pods {app=prometheus}\",\"ports\":[\"TCP/18080\",\"TCP/9100\"]}]");
    assertThat(t.path("unchanged").asInt()).isEqualTo(1);
    assertThat(t.has("pods")).isFalse();
  }

  @Test
  void yamlReportHasTheSameContent() throws Exception {
    CliRun run =
        CliRun.run(
            "diff",
            "-f",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--policy",
            file("q.yaml", DiffFixtures.POLICY),
            "-o",
            "yaml");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    assertThat(run.out()).startsWith("different: true\n");
    assertExactDifferences(Json.yaml().readTree(run.out()));

    CliRun bad = CliRun.run("diff", "-f", file("p.yaml", DiffFixtures.PROPOSAL), "-o", "xml");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("-o xml: write text, json or yaml");
  }

  @Test
  void namespaceSelectsTheTargetsOnBothSides() throws Exception {
    String otherNamespace = DiffFixtures.POLICY.replace("namespace: demo}", "namespace: shop}");
    Path q =
        Files.writeString(dir.resolve("q.yaml"), DiffFixtures.POLICY + "---\n" + otherNamespace);
    CliRun all =
        CliRun.run(
            "diff",
            "-f",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--policy",
            q.toString(),
            "-o",
            "json");
    assertThat(Json.mapper().readTree(all.out()).path("onlyInPolicies")).hasSize(1);
    CliRun demo =
        CliRun.run(
            "diff",
            "-f",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--policy",
            q.toString(),
            "-n",
            "demo",
            "-o",
            "json");
    assertThat(demo.exitCode()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    JsonNode report = Json.mapper().readTree(demo.out());
    assertExactDifferences(report);
    assertThat(report.path("onlyInPolicies")).isEmpty();
  }

  @Test
  void contextPicksTheClusterOfTheKubeconfig() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    String kubeconfig =
        """
        apiVersion: v1
        kind: Config
        current-context: a
        clusters:
        - name: a
          cluster: {server: "https://127.0.0.1:1"}
        - name: b
          cluster: {server: "https://127.0.0.1:%d"}
        contexts:
        - name: a
          context: {cluster: a, user: u}
        - name: b
          context: {cluster: b, user: u}
        users:
        - name: u
          user: {token: t}
        """
            .formatted(closed);
    String config = file("kubeconfig", kubeconfig);
    CliRun run =
        CliRun.run(
            "diff",
            "-f",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--kubeconfig",
            config,
            "--context",
            "b");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.err())
        .contains(
            "cannot read WorkloadNetworkPolicies from the API server at https://127.0.0.1:"
                + closed);
    // Not timed here: the message states the bound (DiffOnApiServerTest runs it under a generous
    // deadline).
    assertThat(run.err()).contains("gave up after 2 attempts");

    CliRun unknown =
        CliRun.run(
            "diff",
            "-f",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--kubeconfig",
            config,
            "--context",
            "c");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err()).contains("--context c is not a context of kubeconfig " + config);
  }

  @Test
  void textReportMarksAddedAndRemovedPeers() throws Exception {
    CliRun run =
        CliRun.run(
            "diff",
            "--proposal",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--policy",
            file("q.yaml", DiffFixtures.POLICY));
    assertThat(run.exitCode()).isEqualTo(3);
    assertThat(run.out())
        .contains(
            "demo/Deployment/http-server Ingress: WorkloadNetworkPolicyProposal "
                + "demo/deployment-http-server-ingress against WorkloadNetworkPolicy demo/deployment-http-server-ingress "
                + "(1 unchanged)")
        .contains("  + namespace demo, pods {app=http-client}: UDP/18081\n")
        .contains("  + namespace other, pods {app=scraper}: TCP/9090\n")
        .contains("  - namespace monitoring, pods {app=prometheus}: TCP/18080, TCP/9100\n");
  }

  @Test
  void theSameConnectivityWrittenDifferentlyIsNoDifference() throws Exception {
    // The proposal's rules split per port, in another order: the same (peer, port) pairs.
    String same =
        """
        kind: WorkloadNetworkPolicy
        metadata: {name: hand-made, namespace: demo}
        spec:
          backend: kubernetes
          targetRef: {kind: Deployment, name: http-server}
          direction: Ingress
          kubernetes:
            podSelector: {matchLabels: {app: http-server}}
            policyTypes: [Ingress]
            ingress:
            - from: [{podSelector: {matchLabels: {app: scraper}}, namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}}]
              ports: [{port: 9090}]
            - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: demo}}, podSelector: {matchLabels: {app: http-client}}}]
              ports: [{protocol: UDP, port: 18081}]
            - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: demo}}, podSelector: {matchLabels: {app: http-client}}}]
              ports: [{protocol: TCP, port: 18080}]
        """;
    CliRun run =
        CliRun.run(
            "diff",
            "--proposal",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--policy",
            file("q.yaml", same));
    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains(": same connectivity (3 unchanged)");
  }

  @Test
  void targetsOnlyInTheProposalsOrOnlyInThePoliciesAreDifferences() throws Exception {
    // The policy is for another target: the proposal's target has no policy, the policy's no
    // proposal.
    String otherTarget = DiffFixtures.POLICY.replace("name: http-server}", "name: http-client}");
    CliRun run =
        CliRun.run(
            "diff",
            "--proposal",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--policy",
            file("q.yaml", otherTarget),
            "-o",
            "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    JsonNode report = Json.mapper().readTree(run.out());
    assertThat(report.path("different").asBoolean()).isTrue();
    assertThat(report.path("targets")).isEmpty();
    assertThat(report.path("onlyInProposals")).hasSize(1);
    JsonNode added = report.path("onlyInProposals").get(0);
    assertThat(added.path("target").asText()).isEqualTo("demo/Deployment/http-server");
    assertThat(added.path("proposal").asText())
        .isEqualTo("WorkloadNetworkPolicyProposal " + "demo/deployment-http-server-ingress");
    assertThat(added.has("policy")).isFalse();
    assertThat(added.path("added").toString())
        .isEqualTo(
            "[{\"peer\":\"namespace demo, pods {app=http-client}\",\"ports\":[\"TCP/18080\",\"UDP/18081\"]},"
                + "{\"peer\":\"namespace other, pods {app=scraper}\",\"ports\":[\"TCP/9090\"]}]");
    assertThat(added.path("removed")).isEmpty();
    assertThat(report.path("onlyInPolicies")).hasSize(1);
    JsonNode removed = report.path("onlyInPolicies").get(0);
    assertThat(removed.path("target").asText()).isEqualTo("demo/Deployment/http-client");
    assertThat(removed.path("policy").asText())
        .isEqualTo("WorkloadNetworkPolicy demo/deployment-http-server-ingress");
    assertThat(removed.has("proposal")).isFalse();
    assertThat(removed.path("added")).isEmpty();
    assertThat(removed.path("removed").toString())
        .isEqualTo(
            "[{\"peer\":\"namespace demo, pods {app=http-client}\",\"ports\":[\"TCP/18080\"]},"
                + "{\"peer\":\"namespace monitoring, pods {app=prometheus}\",\"ports\":[\"TCP/18080\",\"TCP/9100\"]}]");

    CliRun text =
        CliRun.run(
            "diff",
            "--proposal",
            file("p.yaml", DiffFixtures.PROPOSAL),
            "--policy",
            file("q.yaml", otherTarget));
    assertThat(text.exitCode()).isEqualTo(3);
    assertThat(text.out())
        .startsWith(
            "Compared 1 proposal with 1 policy from "
                + dir.resolve("q.yaml")
                + ": 0 targets in both (0 different), 1 only in the proposals, 1 only in the policies.\n")
        .contains(
            "Only in the proposals (no policy for the target yet; everything is added):\n"
                + "demo/Deployment/http-server Ingress: WorkloadNetworkPolicyProposal demo/deployment-http-server-ingress\n"
                + "  + namespace demo, pods {app=http-client}: TCP/18080, UDP/18081\n"
                + "  + namespace other, pods {app=scraper}: TCP/9090\n")
        .contains(
            "Only in the policies (no proposal for the target; everything is removed):\n"
                + "demo/Deployment/http-client Ingress: WorkloadNetworkPolicy demo/deployment-http-server-ingress\n"
                + "  - namespace demo, pods {app=http-client}: TCP/18080\n"
                + "  - namespace monitoring, pods {app=prometheus}: TCP/18080, TCP/9100\n");
  }

  @Test
  void aFileThatIsNotAProposalExitsTwo() throws Exception {
    CliRun run =
        CliRun.run(
            "diff",
            "--proposal",
            file("p.yaml", "kind: Deployment\nmetadata: {name: x}\n"),
            "--policy",
            file("q.yaml", DiffFixtures.POLICY));
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("document 1 of")
        .contains("is a Deployment; --proposal takes a " + "WorkloadNetworkPolicyProposal");
  }

  @Test
  void readsTheProposalsOfADirectoryRecursivelyAndThePoliciesFromStandardInput() throws Exception {
    // What learn writes: DIR/<namespace>/<name>.yaml, beside files that are not manifests.
    Path proposals = dir.resolve("proposals");
    Files.createDirectories(proposals.resolve("demo"));
    Files.writeString(
        proposals.resolve("demo/deployment-http-server-ingress.yaml"), DiffFixtures.PROPOSAL);
    Files.writeString(proposals.resolve("unreadable-lines.txt"), "# line 3: not JSON\n{\n");
    CliRun run =
        CliRun.runWithStdin(
            DiffFixtures.POLICY, "diff", "-f", proposals.toString(), "--policy", "-", "-o", "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    assertExactDifferences(Json.mapper().readTree(run.out()));

    CliRun both = CliRun.run("diff", "--proposal", "-", "--policy", "-");
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("both name standard input");

    Path empty = Files.createDirectories(dir.resolve("empty"));
    CliRun none =
        CliRun.run("diff", "-f", empty.toString(), "--policy", file("q.yaml", DiffFixtures.POLICY));
    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.err())
        .contains("--proposal directory " + empty + " holds no .yaml, .yml or .json file");
  }

  @Test
  void namesTheFileOfABadDocumentInADirectory() throws Exception {
    Path proposals = Files.createDirectories(dir.resolve("proposals/demo"));
    Files.writeString(proposals.resolve("a.yaml"), DiffFixtures.PROPOSAL);
    Files.writeString(proposals.resolve("b.yaml"), "kind: Deployment\nmetadata: {name: x}\n");
    CliRun run =
        CliRun.run(
            "diff",
            "-f",
            dir.resolve("proposals").toString(),
            "--policy",
            file("q.yaml", DiffFixtures.POLICY));
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("document 1 of " + proposals.resolve("b.yaml") + " is a Deployment");
  }

  @Test
  void ciliumPoliciesAreComparedByEndpointsNamesAndPorts() throws Exception {
    String head =
        """
        metadata: {name: deployment-http-client-egress, namespace: demo}
        spec:
          backend: cilium
          targetRef: {kind: Deployment, name: http-client}
          direction: Egress
        """;
    String proposal =
        "apiVersion: networkenforcer.kubewarden.io/v1alpha1\nkind: WorkloadNetworkPolicyProposal\n"
            + head
            + """
              cilium:
                endpointSelector: {matchLabels: {app: http-client}}
                egress:
                - toFQDNs: [{matchName: api.stripe.com}, {matchName: files.stripe.com}]
                  toPorts: [{ports: [{port: "443", protocol: TCP}]}]
                - toEntities: [world]
                  toPorts: [{ports: [{port: "8443", protocol: TCP}]}]
            """;
    String policy =
        "apiVersion: networkenforcer.kubewarden.io/v1alpha1\nkind: WorkloadNetworkPolicy\n"
            + head
            + """
              mode: monitor
              cilium:
                endpointSelector: {matchLabels: {app: http-client}}
                egress:
                - toFQDNs: [{matchName: api.stripe.com}]
                  toPorts: [{ports: [{port: "443", protocol: TCP}, {port: "80", protocol: TCP}]}]
            """;
    CliRun run =
        CliRun.run(
            "diff",
            "--proposal",
            file("p.yaml", proposal),
            "--policy",
            file("q.yaml", policy),
            "-o",
            "json");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    JsonNode t = Json.mapper().readTree(run.out()).path("targets").get(0);
    assertThat(t.path("added").toString())
        .isEqualTo(
            "[{\"peer\":\"entity world\",\"ports\":[\"TCP/8443\"]},"
                + "{\"peer\":\"name files.stripe.com\",\"ports\":[\"TCP/443\"]}]");
    assertThat(t.path("removed").toString())
        .isEqualTo("[{\"peer\":\"name api.stripe.com\",\"ports\":[\"TCP/80\"]}]");
    assertThat(t.path("unchanged").asInt()).isEqualTo(1);
  }

  @Test
  void ciliumHttpRulesAreComparedPerPort() throws Exception {
    String head =
        """
        metadata: {name: deployment-http-server-ingress, namespace: demo}
        spec:
          backend: cilium
          targetRef: {kind: Deployment, name: http-server}
          direction: Ingress
        """;
    String rule =
        """
          cilium:
            endpointSelector: {matchLabels: {app: http-server}}
            ingress:
            - fromEndpoints: [{matchLabels: {app: http-client}}]
              toPorts:
              - ports: [{port: "9090", protocol: TCP}]
              - ports: [{port: "8080", protocol: TCP}]
                rules: {http: [%s]}
              - ports: [{port: "7070", protocol: TCP}]
                rules: {http: [%s]}
        """;
    String proposal =
        "apiVersion: networkenforcer.kubewarden.io/v1alpha1\nkind: WorkloadNetworkPolicyProposal\n"
            + head
            + rule.formatted(
                "{method: GET, path: \"^/a$\"}, {method: POST, path: \"^/a$\"}",
                "{method: GET, path: \"^/b$\"}");
    String policy =
        "apiVersion: networkenforcer.kubewarden.io/v1alpha1\nkind: WorkloadNetworkPolicy\n"
            + head
            + "  mode: monitor\n"
            + rule.formatted(
                    "{method: POST, path: \"^/a$\"}, {method: GET, path: \"^/a$\"}",
                    "{path: \"^/b$\"}")
                .replace("\"9090\"", "\"9091\"");
    CliRun run =
        CliRun.run(
            "diff",
            "--proposal",
            file("p.yaml", proposal),
            "--policy",
            file("q.yaml", policy),
            "-o",
            "json");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(DiffCommand.EXIT_DIFFERENT);
    JsonNode t = Json.mapper().readTree(run.out()).path("targets").get(0);
    // 8080's rules differ only in order: unchanged; 7070's method differs.
    assertThat(t.path("added").toString())
        .isEqualTo(
            "[{\"peer\":\"pods {app=http-client}\",\"ports\":[\"TCP/7070 (HTTP GET ^/b$)\","
                + "\"TCP/9090\"]}]");
    assertThat(t.path("removed").toString())
        .isEqualTo(
            "[{\"peer\":\"pods {app=http-client}\",\"ports\":[\"TCP/7070 (HTTP * ^/b$)\","
                + "\"TCP/9091\"]}]");
    assertThat(t.path("unchanged").asInt()).isEqualTo(1);
  }

  private String file(String name, String content) throws Exception {
    return Files.writeString(dir.resolve(name), content).toString();
  }
}
