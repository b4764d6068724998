package io.kubewarden.networkenforcer.cli.learn;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code learn} over the basic sample with the Kubernetes backend: the real pipeline (embedded
 * broker, ingest file source, the processor topology) must write exactly the proposals of
 * fixtures/README.md, whether selectors come from the cluster state or from the capture's labels.
 */
class LearnKubernetesTest {
  /**
   * The sample's call to api.stripe.com: Hubble reports the address, Goldmane only "a public
   * network".
   */
  static final String HUBBLE_INTERNET_RULE = "142.251.209.46/32 -> TCP/443";

  static final String GOLDMANE_INTERNET_RULE = "0.0.0.0/0 | ::/0 -> TCP/443";
  static final Map<String, Set<String>> EXPECTED_RULES =
      Map.of(
          "demo/deployment-http-client-egress",
              Set.of(
                  "demo {app=http-server} -> TCP/18080,UDP/18081",
                  "kube-system {k8s-app=kube-dns} -> UDP/53"),
          "demo/deployment-http-server-ingress",
              Set.of("demo {app=http-client} -> TCP/18080,UDP/18081"),
          "kube-system/deployment-coredns-ingress", Set.of("demo {app=http-client} -> UDP/53"));
  static final Map<String, String> OWN_SELECTORS =
      Map.of(
          "demo/deployment-http-client-egress", "{app=http-client}",
          "demo/deployment-http-server-ingress", "{app=http-server}",
          "kube-system/deployment-coredns-ingress", "{k8s-app=kube-dns}");

  @TempDir Path out;

  @Test
  void theClusterStateCanComeFromStandardInput() throws Exception {
    // kubectl get ns,deploy,sts,ds,rs,pods -A -o json | network-enforcer learn --cluster-state -
    // ...
    CliRun run =
        CliRun.runWithStdin(
            Files.readString(sample("cluster-state.json")),
            "learn",
            "-f",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            "-",
            "--output-dir",
            out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertExpectedProposals(out);
    assertThat(run.out()).contains("selectors from the cluster-state file");

    CliRun both =
        CliRun.run(
            "learn",
            "-f",
            "-",
            "--cluster-state",
            "-",
            "--output-dir",
            out.resolve("other").toString());
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("both name standard input");
  }

  @Test
  void hubbleCaptureWithClusterStateGivesTheFixtureProposals() throws Exception {
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertExpectedProposals(out);
    // The capture holds a lost_events record: the loss comes first, then that nothing converged ...
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).startsWith("WARNING: lost events: 42 (the capture is INCOMPLETE");
    assertThat(lines.get(1))
        .startsWith("WARNING: converged: 0 of 3 (the capture spans")
        .contains("cannot show that traffic of a longer cycle (a daily or weekly job) is covered");
    assertThat(lines.get(2))
        .isEqualTo(
            "Learned from "
                + sample("hubble-flows.jsonl")
                + " (hubble, backend kubernetes, selectors from the cluster-state file)");
    assertThat(run.out())
        .contains("records read:        34")
        .contains("proposals written:   3")
        .containsPattern(
            "    "
                + Pattern.quote(out.resolve("demo/deployment-http-client-egress.yaml").toString())
                + " \\(\\d+ rules\\)\n")
        // The node's connection is dropped and counted, never learned; the internet call is
        // learned.
        .containsPattern("dropped at ingest: +\\d+ \\(.*host 1")
        .doesNotContain("external 1")
        .contains("unreadable lines:    0")
        // What the processor did not learn from, per reason (ProcessorMetrics.notLearnedByReason).
        .contains("not learned:         1 (no-destination-workload 1)")
        // The rules only with --verbose.
        .doesNotContain("-> addresses")
        .contains("(--verbose lists every rule of every proposal");
    assertThat(lines).hasSizeLessThan(20);

    CliRun verbose =
        CliRun.run(
            "learn",
            "-f",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            out.toString(),
            "--overwrite",
            "--verbose");
    assertThat(verbose.exitCode()).as(verbose.err()).isZero();
    assertThat(verbose.out())
        .contains("-> addresses 142.251.209.46/32 on TCP 443 (api.stripe.com)")
        .doesNotContain("(--verbose");

    CliRun json =
        CliRun.run(
            "learn",
            "-f",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            out.toString(),
            "--overwrite",
            "-o",
            "json");
    assertThat(json.exitCode()).as(json.err()).isZero();
    var doc = Json.mapper().readTree(json.out());
    assertThat(doc.path("recordsRead").asLong()).isEqualTo(34);
    assertThat(doc.path("lostEvents").asLong()).isEqualTo(42);
    assertThat(doc.path("proposalsWritten").asInt()).isEqualTo(3);
    assertThat(doc.path("converged").asInt()).isZero();
    assertThat(doc.path("warnings")).hasSize(2);
    assertThat(doc.path("warnings").get(0).asText()).startsWith("lost events: 42");
    assertThat(doc.path("notLearnedByReason").toString())
        .isEqualTo("{\"no-destination-workload\":1}");
    assertThat(doc.path("proposals")).hasSize(3);
    assertThat(doc.path("proposals").findValuesAsText("file"))
        .contains(out.resolve("demo/deployment-http-client-egress.yaml").toString());
    // ... and in every manifest.
    LearnedProposals.read(out)
        .values()
        .forEach(
            p ->
                assertThat(p.getStatus().getConditions())
                    .singleElement()
                    .satisfies(
                        c -> {
                          assertThat(c.getType()).isEqualTo("Converged");
                          assertThat(c.getStatus()).isEqualTo("False");
                          assertThat(c.getReason()).isEqualTo("EventsLost");
                          assertThat(c.getMessage()).contains("lost 42 events");
                        }));
  }

  @Test
  void timingsSayHowLongEachPhaseTookAndAddUpToTheTotal() {
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            out.toString(),
            "--timings");

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, Double> seconds = new LinkedHashMap<>();
    Matcher line = Pattern.compile("(?m)^timing (.+): (\\d+\\.\\d\\d) s$").matcher(run.err());
    while (line.find()) {
      seconds.put(line.group(1), Double.parseDouble(line.group(2)));
    }
    assertThat(seconds.keySet())
        .containsExactly(
            "JVM start",
            "options and capture format",
            "cluster state",
            "output directory, topology ready",
            "capture read and resolved",
            "last flows processed",
            "combinations learned, proposals rendered",
            "proposals read back",
            "manifests written",
            "summary",
            "total");
    double phases =
        seconds.entrySet().stream()
            .filter(e -> !e.getKey().equals("total"))
            .mapToDouble(Map.Entry::getValue)
            .sum();
    // Each figure is rounded to 10 ms.
    assertThat(seconds.get("total")).isCloseTo(phases, offset(0.06));
    assertThat(seconds.get("total")).isPositive();
    // Without the option, nothing of it.
    CliRun quiet =
        CliRun.run(
            "learn",
            "--input",
            sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            out.resolve("again").toString());
    assertThat(quiet.err()).doesNotContain("timing ");
  }

  @Test
  void timingsOfStandardInputSaySpoolingApartFromTheJvmsStart() throws Exception {
    InputStream stdin = System.in;
    CliRun run;
    try {
      System.setIn(new ByteArrayInputStream(Files.readAllBytes(sample("hubble-flows.jsonl"))));
      run =
          CliRun.run(
              "learn",
              "--input",
              "-",
              "--cluster-state",
              sample("cluster-state.json").toString(),
              "--output-dir",
              out.toString(),
              "--timings");
    } finally {
      System.setIn(stdin);
    }

    assertThat(run.exitCode()).as(run.err()).isZero();
    Matcher line = Pattern.compile("(?m)^timing (.+): \\d+\\.\\d\\d s$").matcher(run.err());
    List<String> phases = new ArrayList<>();
    while (line.find()) {
      phases.add(line.group(1));
    }
    assertThat(phases)
        .startsWith("JVM start", "standard input spooled", "options and capture format");
  }

  @Test
  void aNodeRelayCouldNotReadMakesTheCaptureIncompleteWithoutLostEvents() throws Exception {
    // The sample without its lost_events record, with worker-2 unavailable to Relay for a while.
    List<String> lines =
        new ArrayList<>(
            Files.readAllLines(sample("hubble-flows.jsonl")).stream()
                .filter(l -> !l.contains("\"lost_events\""))
                .toList());
    lines.add(
        2,
        "{\"node_status\":{\"state_change\":\"NODE_UNAVAILABLE\",\"node_names\":[\"default/worker-2\"],"
            + "\"message\":\"connection refused\"},\"time\":\"2026-08-03T15:40:01.000000000Z\"}");
    Path capture = Files.write(out.resolve("capture.jsonl"), lines);
    Path manifests = out.resolve("proposals");

    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            capture.toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            manifests.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertExpectedProposals(manifests);
    assertThat(run.out())
        .doesNotContain("lost events:")
        .startsWith("WARNING: unreadable nodes: default/worker-2 (the capture is INCOMPLETE");
    LearnedProposals.read(manifests)
        .values()
        .forEach(
            p ->
                assertThat(p.getStatus().getConditions())
                    .singleElement()
                    .satisfies(
                        c -> {
                          assertThat(c.getReason()).isEqualTo("EventsLost");
                          assertThat(c.getMessage())
                              .startsWith(
                                  "the data plane could not read node default/worker-2 for a time while "
                                      + "the capture was taken");
                        }));
  }

  @Test
  void hubbleCaptureAloneTakesSelectorsFromPodLabelsWithoutGeneratedOnes() throws Exception {
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("hubble-flows.jsonl").toString(),
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertExpectedProposals(out);
    assertThat(run.out()).contains("selectors from the capture's pod labels");
    assertThat(Files.readString(out.resolve("demo/deployment-http-server-ingress.yaml")))
        .doesNotContain("pod-template-hash");
  }

  @Test
  void goldmaneCaptureGivesTheSameKubernetesProposals() {
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("goldmane-flows.jsonl").toString(),
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("(goldmane, backend kubernetes");
    // Goldmane reports no outside address: the widened rule, which without --cluster-cidr excepts
    // nothing; the summary says how to fix that.
    assertThat(run.out())
        .contains(
            "WARNING: outside rules without except: 1 proposals allow 0.0.0.0/0 and ::/0 on some "
                + "ports")
        .contains("pass --cluster-cidr with the pod and service ranges");
    assertExpectedProposals(out, GOLDMANE_INTERNET_RULE);
  }

  @Test
  void goldmaneCaptureAloneInfersOwnersFromAggregatedNamesAndLabels() {
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            sample("goldmane-flows.jsonl").toString(),
            "--output-dir",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("selectors from the capture's pod labels");
    assertExpectedProposals(out, GOLDMANE_INTERNET_RULE);
  }

  @Test
  void garbageLinesAreCountedAndTheRestIsStillLearned() throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(sample("hubble-flows.jsonl")));
    lines.add(3, "this is not JSON");
    lines.add(10, "{\"flow\": {\"verdict\": 12345, \"source\": \"not an object\"}}");
    lines.add("[1, 2, 3]");
    Path capture = out.getParent().resolve(out.getFileName() + "-garbage.jsonl");
    Files.write(capture, lines);
    Path dir = out.resolve("proposals");

    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            capture.toString(),
            "--format",
            "hubble",
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            dir.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("records read:        37")
        .contains("unreadable lines:    3")
        .contains("line 4: not JSON");
    assertExpectedProposals(dir);
    Files.deleteIfExists(capture);
  }

  static void assertExpectedProposals(Path dir) {
    assertExpectedProposals(dir, HUBBLE_INTERNET_RULE);
  }

  static void assertExpectedProposals(Path dir, String internetRule) {
    Map<String, WorkloadNetworkPolicyProposal> proposals = LearnedProposals.read(dir);
    assertThat(proposals).containsOnlyKeys(EXPECTED_RULES.keySet());
    proposals.forEach(
        (key, p) -> {
          assertThat(p.getSpec().getBackend()).isEqualTo(Backend.kubernetes);
          assertThat(p.getSpec().getIstio()).isNull();
          Direction direction = key.endsWith("-egress") ? Direction.Egress : Direction.Ingress;
          assertThat(p.getSpec().getDirection()).isEqualTo(direction);
          assertThat(p.getSpec().getKubernetes().getPolicyTypes())
              .containsExactly(direction.name());
          assertThat(p.getSpec().getTargetRef().getKind().name()).isEqualTo("Deployment");
          assertThat(LearnedProposals.selector(p.getSpec().getKubernetes().getPodSelector()))
              .isEqualTo(OWN_SELECTORS.get(key));
          Set<String> expected = new TreeSet<>(EXPECTED_RULES.get(key));
          if (key.equals("demo/deployment-http-client-egress")) {
            expected.add(internetRule);
          }
          assertThat(LearnedProposals.kubernetesRules(p)).as(key).isEqualTo(expected);
          assertThat(p.getStatus().getEvidence()).as("evidence of " + key).isNotEmpty();
          assertThat(p.getStatus().getEvidence())
              .allSatisfy(
                  e ->
                      assertThat(e.getPorts())
                          .allSatisfy(port -> assertThat(port.getCount()).isPositive()));
        });
  }
}
