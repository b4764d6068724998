package io.kubewarden.networkenforcer.cli.learn;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Labels;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code learn} on captures shaped like real clusters': a rotated, gzip-compressed multi-node
 * Hubble capture whose remote endpoints carry no {@code workloads} and whose replies carry no
 * {@code is_reply}; Goldmane bare flows from standard input; ztunnel's default text logs; and the
 * output directory rules.
 */
class LearnRealCapturesTest {
  @TempDir Path dir;

  private static Path capture(String name) {
    return CliRun.repoRoot().resolve("samples/captures").resolve(name);
  }

  private static Map<String, String> annotations(WorkloadNetworkPolicyProposal p) {
    return p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations();
  }

  @Test
  void aRotatedMultiNodeHubbleCaptureLearnsOnlyRequestsAndMarksInferredWorkloads()
      throws Exception {
    Path rotated = Files.createDirectory(dir.resolve("hubble"));
    try (OutputStream gz =
        new GZIPOutputStream(Files.newOutputStream(rotated.resolve("events.log.gz")))) {
      gz.write(Files.readAllBytes(capture("hubble-multinode.jsonl")));
    }
    Path out = dir.resolve("out");
    CliRun run = CliRun.run("learn", "--input", rotated.toString(), "--output-dir", out.toString());

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    Map<String, WorkloadNetworkPolicyProposal> proposals = LearnedProposals.read(out);
    assertThat(proposals)
        .containsOnlyKeys(
            "shop/deployment-frontend-egress",
            "shop/deployment-backend-ingress",
            "shop/deployment-backend-egress",
            "shop/statefulset-db-ingress",
            "shop/deployment-worker-egress");
    // Every port is a service port: no reply taught an ephemeral one.
    assertThat(LearnedProposals.kubernetesRules(proposals.get("shop/deployment-backend-ingress")))
        .containsExactly(
            "shop {app=frontend, tier=web} -> TCP/8080,TCP/9090",
            "shop {app=worker, queue=orders} -> TCP/8080",
            // debug-x7k2p: no workload (a lone suffix, nothing says DaemonSet), known by its labels
            "shop {run=debug} -> TCP/8080");
    assertThat(proposals.get("shop/deployment-backend-ingress").getStatus().getEvidence())
        .filteredOn(e -> "labels".equals(e.getPeerKnownBy()))
        .extracting(e -> e.getPeer() + " " + e.getCount())
        .containsExactly("shop/Labels/run=debug 1");
    assertThat(LearnedProposals.kubernetesRules(proposals.get("shop/deployment-backend-egress")))
        .containsExactly("shop {app=db} -> TCP/5432");
    // worker was never named by any record: its workload and selector were inferred.
    assertThat(annotations(proposals.get("shop/deployment-backend-ingress")))
        .containsExactly(Map.entry(Labels.INFERRED_WORKLOADS, "shop/Deployment/worker"));
    assertThat(annotations(proposals.get("shop/deployment-worker-egress")))
        .containsExactly(Map.entry(Labels.INFERRED_WORKLOADS, "shop/Deployment/worker"));
    for (String named :
        Set.of(
            "shop/deployment-frontend-egress",
            "shop/deployment-backend-egress",
            "shop/statefulset-db-ingress")) {
      assertThat(annotations(proposals.get(named))).as(named).isEmpty();
    }
    assertThat(Files.readString(out.resolve("shop/deployment-worker-egress.yaml")))
        .contains("networkenforcer.kubewarden.io/inferred-workloads: \"shop/Deployment/worker\"");

    assertThat(run.out())
        .contains("records read:        16")
        // debug-x7k2p known by its labels (2), and the L7 request of a connection whose L3/L4
        // record was read: published for its method and path (HubbleL7HttpTest), a record of its
        // own
        .contains("flows published:     7")
        .doesNotContain("ambiguous-workload")
        .doesNotContain("unresolved-deny")
        .contains("remote-node 1")
        .doesNotContain("l7-record")
        .contains("duplicate-report 2")
        .contains("reply 4")
        .startsWith("WARNING: lost events: 42 (the capture is INCOMPLETE")
        .contains("inferred workloads:  1 flows, 2 proposals")
        .contains("proposals written:   5");
  }

  @Test
  void theOutputDirectoryIsNotReusedSilently() throws Exception {
    Path out = dir.resolve("out");
    CliRun first =
        CliRun.run(
            "learn",
            "--input",
            capture("hubble-multinode.jsonl").toString(),
            "--output-dir",
            out.toString());
    assertThat(first.exitCode()).as(first.err()).isZero();
    Files.writeString(out.resolve("notes.txt"), "mine");

    CliRun refused =
        CliRun.run(
            "learn",
            "--input",
            capture("goldmane-bare-flows.jsonl").toString(),
            "--output-dir",
            out.toString());
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .contains("--output-dir " + out + " is not empty")
        .contains("--overwrite")
        .doesNotContain("Exception");
    assertThat(LearnedProposals.read(out)).hasSize(5);

    // Goldmane bare flows from standard input, one line unreadable; the old manifests go, the
    // user's file stays.
    String goldmane =
        Files.readString(capture("goldmane-bare-flows.jsonl")) + "{\"Key\": truncated\n";
    InputStream stdin = System.in;
    CliRun second;
    try {
      System.setIn(new ByteArrayInputStream(goldmane.getBytes(StandardCharsets.UTF_8)));
      second = CliRun.run("learn", "--input", "-", "--output-dir", out.toString(), "--overwrite");
    } finally {
      System.setIn(stdin);
    }
    assertThat(second.exitCode()).as(second.err()).isZero();
    Map<String, WorkloadNetworkPolicyProposal> proposals = LearnedProposals.read(out);
    assertThat(proposals)
        .containsOnlyKeys(
            "shop/deployment-frontend-egress",
            "shop/deployment-backend-ingress",
            "shop/daemonset-log-agent-egress");
    // The source-only report of log-agent is a flow.
    assertThat(LearnedProposals.kubernetesRules(proposals.get("shop/deployment-backend-ingress")))
        .containsExactly(
            "shop {app=frontend, tier=web} -> TCP/8080", "shop {app=log-agent} -> TCP/8080");
    assertThat(
            annotations(proposals.get("shop/daemonset-log-agent-egress"))
                .get(Labels.INFERRED_WORKLOADS))
        .isEqualTo("shop/DaemonSet/log-agent,shop/Deployment/backend");
    assertThat(out.resolve("notes.txt")).hasContent("mine");
    assertThat(out.resolve("shop/statefulset-db-ingress.yaml")).doesNotExist();
    Path unreadable = out.resolve("unreadable-lines.txt");
    assertThat(unreadable).hasContent("# line 5: not JSON\n{\"Key\": truncated");
    assertThat(second.out())
        .contains("unreadable lines:    1 (kept in " + unreadable + ")")
        .contains("old manifests removed (--overwrite): 5")
        .contains("Learned from - (goldmane");
  }

  @Test
  void aFormatThatContradictsTheCaptureIsAnError() {
    CliRun wrong =
        CliRun.run(
            "learn",
            "--input",
            capture("hubble-multinode.jsonl").toString(),
            "--format",
            "goldmane",
            "--output-dir",
            dir.resolve("out").toString());
    assertThat(wrong.exitCode()).isEqualTo(2);
    assertThat(wrong.err())
        .contains("--format goldmane does not match the capture: line 1")
        .contains("is a hubble record")
        .doesNotContain("Exception");

    CliRun unknown =
        CliRun.run(
            "learn",
            "--input",
            capture("hubble-multinode.jsonl").toString(),
            "--format",
            "json",
            "--output-dir",
            dir.resolve("out").toString());
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err()).contains("--format: capture format 'json' is not one of hubble");
    assertThat(dir.resolve("out")).doesNotExist();
  }

  @Test
  void ztunnelsDefaultTextLogsAreLearned() {
    Path out = dir.resolve("out");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            capture("ztunnel-text-istio-docs.log").toString(),
            "--cluster-state",
            capture("ztunnel-istio-docs-cluster-state.json").toString(),
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, WorkloadNetworkPolicyProposal> proposals = LearnedProposals.read(out);
    assertThat(proposals).containsOnlyKeys("default/deployment-productpage-v1-ingress");
    var rule =
        proposals
            .get("default/deployment-productpage-v1-ingress")
            .getSpec()
            .getIstio()
            .getRules()
            .get(0);
    assertThat(rule.getFrom().get(0).getSource().getPrincipals())
        .containsExactly("cluster.local/ns/default/sa/curl");
    assertThat(rule.getTo().get(0).getOperation().getPorts()).containsExactly("9080");
  }
}
