package io.kubewarden.networkenforcer.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.PolicyFixtures;
import io.kubewarden.networkenforcer.common.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command on the sample Hubble capture, offline: report, exit codes, bad input. */
class SimulateCommandTest {
  @TempDir Path dir;

  @Test
  void reportsExactlyTheDeniedConnectionAsJsonAndExitsThree() throws Exception {
    Path policy = Files.writeString(dir.resolve("p.yaml"), PolicyFixtures.SERVER_INGRESS);
    CliRun run =
        CliRun.run(
            "simulate",
            "--policy",
            policy.toString(),
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString(),
            "-o",
            "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(SimulateCommand.EXIT_WOULD_DENY);
    JsonNode report = Json.mapper().readTree(run.out());
    assertThat(report.path("wouldDeny").asBoolean()).isTrue();
    // 9 in the cluster and the call to api.stripe.com, an address outside it.
    assertThat(report.path("flows").asLong()).isEqualTo(10);
    assertThat(report.path("denied")).hasSize(1);
    JsonNode denied = report.path("denied").get(0);
    assertThat(denied.path("target").asText()).isEqualTo("demo/Deployment/http-server");
    assertThat(denied.path("direction").asText()).isEqualTo("Ingress");
    assertThat(denied.path("peer").asText()).isEqualTo("demo/Deployment/http-client");
    assertThat(denied.path("protocol").asText()).isEqualTo("UDP");
    assertThat(denied.path("port").asInt()).isEqualTo(18081);
    assertThat(denied.path("count").asLong()).isEqualTo(3);
    // The same first and last seen that learn's evidence gives for this port.
    assertThat(denied.path("firstSeen").asText()).isEqualTo("2026-08-03T15:40:07.991537633Z");
    assertThat(denied.path("lastSeen").asText()).isEqualTo("2026-08-03T15:40:09.653864767Z");
    assertThat(report.path("undetermined")).isEmpty();
    assertThat(report.path("unmatchedRules")).isEmpty();
  }

  @Test
  void thePolicyLearnedFromTheCaptureDeniesNothingAndExitsZero() throws Exception {
    Path policy =
        Files.writeString(
            dir.resolve("p.yaml"),
            PolicyFixtures.SERVER_INGRESS.replace(
                "- {protocol: TCP, port: 18080}",
                "- {protocol: TCP, port: 18080}\n    - {protocol: UDP, port: 18081}"));
    CliRun run =
        CliRun.run(
            "simulate",
            "--policy",
            policy.toString(),
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("Simulated 1 policy against 10 flow records from capture hubble-flows.jsonl")
        .contains("Nothing would be denied.")
        .contains("Every rule matched at least one flow.");
  }

  @Test
  void readsPoliciesFromADirectoryAndTheCaptureFromStandardInput() throws Exception {
    Path policies = Files.createDirectories(dir.resolve("proposals/demo"));
    Files.writeString(policies.resolve("server.yaml"), PolicyFixtures.SERVER_INGRESS);
    CliRun run =
        CliRun.runWithStdin(
            Files.readString(CliRun.sample("hubble-flows.jsonl")),
            "simulate",
            "-f",
            dir.resolve("proposals").toString(),
            "--input",
            "-",
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString(),
            "-o",
            "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(SimulateCommand.EXIT_WOULD_DENY);
    JsonNode report = Json.mapper().readTree(run.out());
    assertThat(report.path("flows").asLong()).isEqualTo(10);
    assertThat(report.path("denied")).hasSize(1);
    assertThat(report.path("denied").get(0).path("port").asInt()).isEqualTo(18081);

    CliRun fromStdin =
        CliRun.runWithStdin(
            PolicyFixtures.SERVER_INGRESS,
            "simulate",
            "--policy",
            "-",
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString(),
            "-o",
            "json");
    assertThat(fromStdin.exitCode()).as(fromStdin.err()).isEqualTo(SimulateCommand.EXIT_WOULD_DENY);
    assertThat(Json.mapper().readTree(fromStdin.out()).path("denied")).hasSize(1);

    CliRun both = CliRun.run("simulate", "--policy", "-", "--input", "-");
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("both name standard input");
  }

  @Test
  void textReportNamesTheUnmatchedRule() throws Exception {
    Path policy =
        Files.writeString(
            dir.resolve("p.yaml"),
            PolicyFixtures.SERVER_INGRESS
                + """
          - from:
            - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
      """);
    CliRun run =
        CliRun.run(
            "simulate",
            "--policy",
            policy.toString(),
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString());
    assertThat(run.exitCode()).isEqualTo(3);
    assertThat(run.out())
        .contains("Would deny 1 connection:")
        .containsPattern(
            "demo/Deployment/http-server +Ingress +demo/Deployment/http-client +UDP/18081 +3 ")
        .contains("Rules that matched no flow:")
        .contains("WorkloadNetworkPolicyProposal demo/deployment-http-server-ingress ingress[1]: ")
        .contains("monitoring");
  }

  @Test
  void aFileThatIsNotAPolicyExitsTwoWithAMessage() throws Exception {
    Path notPolicy =
        Files.writeString(
            dir.resolve("cm.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: demo}\ndata: {a: b}\n");
    CliRun run =
        CliRun.run(
            "simulate",
            "--policy",
            notPolicy.toString(),
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("is a ConfigMap, not a policy; --policy takes a WorkloadNetworkPolicyProposal");
    assertThat(run.out()).isEmpty();

    CliRun missing =
        CliRun.run(
            "simulate",
            "--policy",
            dir.resolve("nope.yaml").toString(),
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("does not exist; fix --policy");

    Path policy = Files.writeString(dir.resolve("p.yaml"), PolicyFixtures.SERVER_INGRESS);
    CliRun both =
        CliRun.run(
            "simulate",
            "--policy",
            policy.toString(),
            "--from",
            "1h",
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString());
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("--input CAPTURE (offline) or --from TIME");
  }

  /**
   * Proposals learned with {@code --learn-l7-http}: the capture's GET /orders is allowed, a later
   * request to another path on a new connection is the one denied flow.
   */
  @Test
  void ciliumHttpRulesDenyARequestToAnotherPath() throws Exception {
    Path capture = CliRun.repoRoot().resolve("samples/captures/hubble-multinode.jsonl");
    Path proposals = dir.resolve("l7");
    CliRun learned =
        CliRun.run(
            "learn",
            "-f",
            capture.toString(),
            "--backend",
            "cilium",
            "--learn-l7-http",
            "--output-dir",
            proposals.toString());
    assertThat(learned.exitCode()).as(learned.err()).isZero();

    List<String> lines = new ArrayList<>(Files.readAllLines(capture));
    String request = lines.stream().filter(l -> l.contains("\"l7\"")).findFirst().orElseThrow();
    lines.add(
        request
            .replace("/orders", "/admin")
            .replace("\"source_port\":45700", "\"source_port\":45800")
            .replace("15:40:01.100012345Z", "15:41:01.100012345Z"));
    CliRun run =
        CliRun.run(
            "simulate",
            "-f",
            proposals.toString(),
            "--input",
            Files.write(dir.resolve("later.jsonl"), lines).toString(),
            "-o",
            "json");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(SimulateCommand.EXIT_WOULD_DENY);
    JsonNode report = Json.mapper().readTree(run.out());
    // Beside the request to another path: debug-x7k2p's connection to db, which the capture shows
    // denied as well (published since a peer known by its labels is kept) and no proposal allows.
    assertThat(report.path("denied")).hasSize(2);
    assertThat(report.path("denied").get(1).path("target").asText())
        .isEqualTo("shop/StatefulSet/db");
    assertThat(report.path("denied").get(1).path("peer").asText())
        .isEqualTo("shop/pod/debug-x7k2p");
    JsonNode denied = report.path("denied").get(0);
    assertThat(denied.path("target").asText()).isEqualTo("shop/Deployment/backend");
    assertThat(denied.path("direction").asText()).isEqualTo("Ingress");
    assertThat(denied.path("port").asInt()).isEqualTo(9090);
    assertThat(denied.path("count").asLong()).isEqualTo(1);
  }

  /**
   * Cilium-backend proposals are simulated with Cilium's semantics: the name's next address is
   * allowed, an address without a name is denied, and a NetworkPolicy beside them adds its allows
   * (Cilium enforces both).
   */
  @Test
  void ciliumProposalsAreSimulatedByNameWithTheNetworkPoliciesBeside() throws Exception {
    Path proposals = dir.resolve("cilium");
    CliRun learned =
        CliRun.run(
            "learn",
            "-f",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString(),
            "--backend",
            "cilium",
            "--output-dir",
            proposals.toString());
    assertThat(learned.exitCode()).as(learned.err()).isZero();

    List<String> lines = new ArrayList<>(Files.readAllLines(CliRun.sample("hubble-flows.jsonl")));
    String stripeCall =
        lines.stream().filter(l -> l.contains("\"142.251.209.46\"")).findFirst().orElseThrow();
    // An hour later: api.stripe.com at another address, and an address without a name.
    lines.add(
        stripeCall
            .replace("142.251.209.46", "142.251.209.99")
            .replace("15:40:10.000000000Z", "16:40:10.000000000Z"));
    lines.add(
        stripeCall
            .replace("142.251.209.46", "192.0.2.7")
            .replace("\"destination_names\":[\"api.stripe.com\"],", "")
            .replace("15:40:10.000000000Z", "16:40:11.000000000Z"));
    Path capture = Files.write(dir.resolve("later.jsonl"), lines);

    CliRun run =
        CliRun.run(
            "simulate",
            "-f",
            proposals.toString(),
            "--input",
            capture.toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString(),
            "-o",
            "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(SimulateCommand.EXIT_WOULD_DENY);
    JsonNode report = Json.mapper().readTree(run.out());
    assertThat(report.path("flows").asLong()).isEqualTo(12);
    assertThat(report.path("denied")).hasSize(1);
    JsonNode denied = report.path("denied").get(0);
    assertThat(denied.path("target").asText()).isEqualTo("demo/Deployment/http-client");
    assertThat(denied.path("direction").asText()).isEqualTo("Egress");
    assertThat(denied.path("peer").asText()).isEqualTo("192.0.2.7");
    assertThat(denied.path("protocol").asText()).isEqualTo("TCP");
    assertThat(denied.path("port").asInt()).isEqualTo(443);
    assertThat(denied.path("count").asLong()).isEqualTo(1);
    assertThat(denied.path("policies").toString())
        .isEqualTo("[\"WorkloadNetworkPolicyProposal demo/deployment-http-client-egress\"]");
    assertThat(report.path("undetermined")).isEmpty();
    assertThat(report.path("unmatchedRules")).isEmpty();

    // A NetworkPolicy of the same pods that allows that address: the union allows everything.
    Files.writeString(
        proposals.resolve("demo/allow-partner.yaml"),
        """
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata: {name: allow-partner, namespace: demo}
        spec:
          podSelector: {matchLabels: {app: http-client}}
          policyTypes: [Egress]
          egress:
          - to: [{ipBlock: {cidr: 192.0.2.0/24}}]
            ports: [{protocol: TCP, port: 443}]
        """);
    CliRun withPolicy =
        CliRun.run(
            "simulate",
            "-f",
            proposals.toString(),
            "--input",
            capture.toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString());
    assertThat(withPolicy.exitCode()).as(withPolicy.out() + withPolicy.err()).isZero();
    assertThat(withPolicy.out()).contains("Nothing would be denied.");
  }
}
