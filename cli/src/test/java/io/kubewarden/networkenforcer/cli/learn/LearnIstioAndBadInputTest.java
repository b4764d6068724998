package io.kubewarden.networkenforcer.cli.learn;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code learn} on the ztunnel capture (Istio backend), and every kind of unusable input: each ends
 * with a message naming what to fix and a non-zero exit code, before any broker starts.
 */
class LearnIstioAndBadInputTest {
  @TempDir Path dir;

  @Test
  void ztunnelCaptureGivesOneIstioIngressProposalWithThePrincipalAndTcpPortOnly() throws Exception {
    Path out = dir.resolve("out");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("ztunnel.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--provider",
            "istio",
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, WorkloadNetworkPolicyProposal> proposals = LearnedProposals.read(out);
    assertThat(proposals).containsOnlyKeys("demo/deployment-http-server-ingress");
    WorkloadNetworkPolicyProposal p = proposals.get("demo/deployment-http-server-ingress");
    assertThat(p.getSpec().getBackend()).isEqualTo(Backend.istio);
    assertThat(p.getSpec().getKubernetes()).isNull();
    assertThat(p.getSpec().getDirection()).isEqualTo(Direction.Ingress);
    IstioPolicy istio = p.getSpec().getIstio();
    assertThat(istio.getSelector().getMatchLabels()).isEqualTo(Map.of("app", "http-server"));
    assertThat(istio.getRules()).hasSize(1);
    IstioPolicy.Rule rule = istio.getRules().get(0);
    assertThat(rule.getFrom())
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.getSource().getPrincipals())
                    .containsExactly("cluster.local/ns/demo/sa/http-client-sa"));
    assertThat(rule.getTo())
        .singleElement()
        .satisfies(t -> assertThat(t.getOperation().getPorts()).containsExactly("18080"));
    // The port stays a string in the file (an unquoted 18080 would fail the CRD schema).
    assertThat(Files.readString(out.resolve("demo/deployment-http-server-ingress.yaml")))
        .containsPattern("- [\"']18080[\"']");
    assertThat(run.out()).contains("(ztunnel, backend istio").contains("proposals written:   1");
  }

  @Test
  void ztunnelIsLearnedWithTheIstioBackendByDefault() {
    // Checked before anything starts: a kubernetes backend does not fit the istio provider.
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("ztunnel.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--backend",
            "kubernetes",
            "--output-dir",
            dir.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("istio provider learns the istio backend only")
        .doesNotContain("\tat ");

    CliRun provider =
        CliRun.run(
            "learn",
            "--input",
            sample("ztunnel.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--provider",
            "cilium",
            "--output-dir",
            dir.toString());
    assertThat(provider.exitCode()).isEqualTo(2);
    assertThat(provider.err()).contains("--provider cilium does not fit the capture");
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void ztunnelWithoutClusterStateSaysWhy() {
    CliRun run =
        CliRun.run(
            "learn", "--input", sample("ztunnel.jsonl").toString(), "--output-dir", dir.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("ztunnel access logs carry no pod labels")
        .contains("--cluster-state");
  }

  @Test
  void anUnknownFormatIsRejectedWithTheFormatsThatExist() throws Exception {
    Path capture = dir.resolve("other.jsonl");
    Files.write(capture, List.of("{\"hello\": \"world\"}", "not json at all"));

    CliRun detected =
        CliRun.run(
            "learn", "--input", capture.toString(), "--output-dir", dir.resolve("out").toString());
    assertThat(detected.exitCode()).isEqualTo(2);
    assertThat(detected.err())
        .contains("no line of " + capture)
        .contains("--format hubble|goldmane|ztunnel")
        .doesNotContain("Exception");

    CliRun named =
        CliRun.run(
            "learn",
            "--input",
            sample("hubble-flows.jsonl").toString(),
            "--format",
            "pcap",
            "--output-dir",
            dir.resolve("out").toString());
    assertThat(named.exitCode()).isEqualTo(2);
    assertThat(named.err()).contains("--format: capture format 'pcap' is not one of hubble");
  }

  @Test
  void anEmptyOrMissingCaptureIsRejected() throws Exception {
    Path empty = dir.resolve("empty.jsonl");
    Files.write(empty, List.of("", "   "));
    CliRun run =
        CliRun.run(
            "learn", "--input", empty.toString(), "--output-dir", dir.resolve("out").toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("capture file " + empty + " is empty");

    CliRun missing =
        CliRun.run(
            "learn",
            "--input",
            dir.resolve("nope.jsonl").toString(),
            "--output-dir",
            dir.resolve("out").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("does not exist; fix --input");
  }

  @Test
  void aMissingClusterStateFileIsRejected() {
    Path state = dir.resolve("cluster.json");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            state.toString(),
            "--output-dir",
            dir.resolve("out").toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("cluster-state file " + state + " does not exist")
        .contains("kubectl get ns,deploy,sts,ds,rs,pods -A -o json");
  }

  @Test
  void aClusterStateThatIsNotAKubernetesListIsRejected() throws Exception {
    Path state = dir.resolve("cluster.json");
    Files.writeString(state, "{ this is : not [ json");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            state.toString(),
            "--output-dir",
            dir.resolve("out").toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("cluster-state file " + state);
  }

  @Test
  void aClusterStateWithoutTheCapturedWorkloadsFallsBackToWhatTheRecordsSay() throws Exception {
    Path state = dir.resolve("namespaces-only.yaml");
    Files.writeString(
        state,
        """
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: Namespace
            metadata: {name: demo, labels: {kubernetes.io/metadata.name: demo}}
        """);
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            state.toString(),
            "--output-dir",
            dir.resolve("out").toString());

    // Hubble names the workloads; their selectors come from the pod labels and the proposals say
    // so.
    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, WorkloadNetworkPolicyProposal> proposals =
        LearnedProposals.read(dir.resolve("out"));
    assertThat(proposals)
        .isNotEmpty()
        .allSatisfy(
            (name, p) ->
                assertThat(p.getMetadata().getAnnotations())
                    .containsKey("networkenforcer.kubewarden.io/inferred-workloads"));
    assertThat(run.out()).contains("inferred workloads:");
  }

  @Test
  void aCaptureWithNothingUsableEndsWithCountedDropsAndExitOne() {
    // Hubble exporter records from Cilium's documentation: an ICMPv6 drop and a bare pod's policy
    // drop.
    Path capture = CliRun.repoRoot().resolve("samples/captures/hubble-export-cilium-docs.jsonl");
    CliRun run =
        CliRun.run(
            "learn", "--input", capture.toString(), "--output-dir", dir.resolve("out").toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("flows published:     0")
        .contains("non-policy-drop 1")
        .contains("not-a-workload 1")
        .contains("proposals written:   0");
    assertThat(run.err()).contains("no flow of");
    assertThat(dir.resolve("out")).doesNotExist();
  }

  @Test
  void requiredOptionsAreNamed() {
    CliRun noInput = CliRun.run("learn", "--output-dir", dir.toString());
    assertThat(noInput.exitCode()).isEqualTo(2);
    assertThat(noInput.err()).contains("--input FILE|DIR|- is required: The capture");

    CliRun noOutput = CliRun.run("learn", "--input", sample("hubble-flows.jsonl").toString());
    assertThat(noOutput.exitCode()).isEqualTo(2);
    assertThat(noOutput.err()).contains("--output-dir DIR is required");
  }

  @Test
  void optionsComeFromTheEnvironmentToo() {
    CliRun run =
        CliRun.run(
            Map.of("NE_INPUT", dir.resolve("from-env.jsonl").toString()),
            "learn",
            "--output-dir",
            dir.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("capture file " + dir.resolve("from-env.jsonl") + " does not exist");
  }
}
