package io.kubewarden.networkenforcer.cli.learn;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Manifests say how to create them, and the proposal of a target with so many peers that the API
 * server cannot store it says so in its file and in the summary.
 */
class ProposalManifestsTest {
  @TempDir Path dir;

  @Test
  void aProposalOverWhatEtcdKeepsSaysSoInItsFileAndInTheSummary() throws Exception {
    ProposalSnapshot dns = snapshot("coredns", 9_000);
    ProposalSnapshot web = snapshot("web", 1_500);
    assertThat(ProposalManifests.tooLargeToStore(dns)).isTrue();
    assertThat(ProposalManifests.tooLargeToStore(web)).as("about 300 KB of spec").isFalse();

    List<Path> files = ProposalManifests.write(dir, List.of(dns, web), "capture.jsonl");
    String dnsFile = Files.readString(files.get(0));
    String webFile = Files.readString(files.get(1));
    assertThat(dnsFile)
        .contains("# Review, then: kubectl apply --server-side -f deployment-coredns-ingress.yaml")
        .containsPattern(
            "# TOO LARGE for the API server to store: the spec of 9000 rules is 1\\.[6-9] MiB");
    assertThat(webFile).contains("kubectl apply --server-side").doesNotContain("TOO LARGE");
    // fabric8's reader stops at 3 Mi code points; a YAML 1.2 parser with a higher limit reads it
    // all.
    Map<?, ?> read =
        (Map<?, ?>)
            new Load(LoadSettings.builder().setCodePointLimit(64 * 1024 * 1024).build())
                .loadFromString(dnsFile);
    assertThat(
            (List<?>) ((Map<?, ?>) ((Map<?, ?>) read.get("spec")).get("kubernetes")).get("ingress"))
        .as("the warning is a comment")
        .hasSize(9_000);
    assertThat(
            new KubernetesSerialization()
                .unmarshal(webFile, WorkloadNetworkPolicyProposal.class)
                .getSpec())
        .isEqualTo(web.spec());

    StringWriter out = new StringWriter();
    new LearnSummary(
            Path.of("capture.jsonl"),
            CaptureFormat.HUBBLE,
            Backend.kubernetes,
            true,
            new CaptureSummary(CaptureFormat.HUBBLE, 10_500, 10_500, Map.of(), 0, List.of()),
            new SimpleMeterRegistry(),
            List.of(dns, web),
            files,
            LearningSettings.DEFAULTS)
        .print(new PrintWriter(out, true));
    assertThat(out.toString())
        .contains("  too large to store:  1 (kube-system/deployment-coredns-ingress; ");
  }

  @Test
  void noWarningWhenEveryProposalFits() {
    StringWriter out = new StringWriter();
    ProposalSnapshot web = snapshot("web", 3);
    new LearnSummary(
            Path.of("capture.jsonl"),
            CaptureFormat.HUBBLE,
            Backend.kubernetes,
            true,
            new CaptureSummary(CaptureFormat.HUBBLE, 3, 3, Map.of(), 0, List.of()),
            new SimpleMeterRegistry(),
            List.of(web),
            ProposalManifests.write(dir, List.of(web), "capture.jsonl"),
            LearningSettings.DEFAULTS)
        .print(new PrintWriter(out, true));
    assertThat(out.toString()).contains("proposals written:   1").doesNotContain("too large");
  }

  @Test
  void theSummaryFitsATerminalAndVerboseListsEveryRule() {
    List<ProposalSnapshot> many = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      many.add(snapshot("web-" + i, 4));
    }
    List<Path> files = ProposalManifests.write(dir, many, "capture.jsonl");
    LearnSummary summary =
        new LearnSummary(
            Path.of("capture.jsonl"),
            CaptureFormat.HUBBLE,
            Backend.kubernetes,
            true,
            new CaptureSummary(CaptureFormat.HUBBLE, 100, 100, Map.of(), 0, List.of()),
            new SimpleMeterRegistry(),
            many,
            files,
            LearningSettings.DEFAULTS);
    StringWriter terse = new StringWriter();
    summary.print(new PrintWriter(terse, true), false);
    List<String> lines = terse.toString().lines().toList();
    // 10 files by name, the rest counted: 25 proposals of 4 rules in under 20 lines, the
    // convergence first.
    assertThat(lines).hasSizeLessThan(20);
    assertThat(lines.get(0)).startsWith("WARNING: converged: 0 of 25");
    assertThat(terse.toString()).doesNotContain("  converged:  ");
    assertThat(lines.stream().filter(l -> l.endsWith(" (4 rules)"))).hasSize(LearnSummary.LISTED);
    assertThat(terse.toString())
        .contains("    ... and 15 more\n")
        .contains("--verbose lists every rule");

    StringWriter verbose = new StringWriter();
    summary.print(new PrintWriter(verbose, true), true);
    for (Path f : files) {
      assertThat(verbose.toString()).contains("    " + f + "\n");
    }
    assertThat(verbose.toString().lines().filter(l -> l.startsWith("        "))).hasSize(25 * 4);
  }

  /** The ingress proposal of {@code target} with one rule per peer, as the processor learns it. */
  private static ProposalSnapshot snapshot(String target, int peers) {
    List<NetworkPolicyIngressRule> rules = new ArrayList<>();
    List<RuleEvidence> evidence = new ArrayList<>();
    for (int i = 0; i < peers; i++) {
      String namespace = "team" + i % 40;
      String app = "app-" + i;
      rules.add(
          new NetworkPolicyIngressRuleBuilder()
              .addNewFrom()
              .withNewNamespaceSelector()
              .withMatchLabels(Map.of("kubernetes.io/metadata.name", namespace))
              .endNamespaceSelector()
              .withNewPodSelector()
              .withMatchLabels(Map.of("app", app, "tier", "backend"))
              .endPodSelector()
              .endFrom()
              .addNewPort()
              .withProtocol("UDP")
              .withNewPort(53)
              .endPort()
              .build());
      evidence.add(
          new RuleEvidence(
              i,
              namespace + "/Deployment/" + app,
              List.of(
                  new PortEvidence(
                      "UDP", "53", "2026-01-01T00:00:00Z", "2026-01-01T00:05:00Z", 3))));
    }
    WorkloadNetworkPolicyProposalSpec spec = new WorkloadNetworkPolicyProposalSpec();
    spec.setBackend(Backend.kubernetes);
    spec.setDirection(Direction.Ingress);
    spec.setTargetRef(new TargetRef(WorkloadKind.Deployment, target));
    spec.setKubernetes(
        new NetworkPolicySpecBuilder()
            .withNewPodSelector()
            .withMatchLabels(Map.of("app", target))
            .endPodSelector()
            .withPolicyTypes("Ingress")
            .withIngress(rules)
            .build());
    return new ProposalSnapshot(
        "deployment-" + target + "-ingress",
        "kube-system",
        spec,
        evidence,
        Instant.parse("2026-01-01T00:05:00Z"));
  }
}
