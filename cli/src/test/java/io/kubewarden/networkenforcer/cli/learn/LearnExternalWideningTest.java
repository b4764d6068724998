package io.kubewarden.networkenforcer.cli.learn;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code learn} widens the outside addresses of one port into one rule once more than {@code
 * --external-peers-widen-above} of them use it, keeping their DNS names as evidence.
 */
class LearnExternalWideningTest {
  private static final String STRIPE = "142.251.209.46";

  @TempDir Path dir;

  /**
   * The basic sample (http-client calls api.stripe.com on TCP 443) plus calls to {@code
   * s3Addresses} addresses behind one storage name, on the same port.
   */
  private Path capture(int s3Addresses) throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(sample("hubble-flows.jsonl")));
    String stripeCall =
        lines.stream()
            .filter(l -> l.contains("\"destination\":\"" + STRIPE + "\""))
            .findFirst()
            .orElseThrow();
    for (int i = 1; i <= s3Addresses; i++) {
      lines.add(
          stripeCall
              .replace(STRIPE, "52.216.8." + i)
              .replace("api.stripe.com", "bucket.s3.amazonaws.com")
              .replace("15:40:10.000000000Z", "15:41:%02d.000000000Z".formatted(i)));
    }
    Path file = dir.resolve("capture-" + s3Addresses + ".jsonl");
    Files.write(file, lines);
    return file;
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
                "--cluster-cidr",
                "10.244.0.0/16,10.96.0.0/12",
                "--output-dir",
                out.toString(),
                "--verbose"));
    args.addAll(List.of(more));
    return CliRun.run(args.toArray(String[]::new));
  }

  @Test
  void elevenAddressesOnOnePortBecomeOneRuleExceptTheClusterWithTheirNames() throws Exception {
    // 1 + 10 addresses on TCP 443: above the default of 10.
    CliRun run = learn(capture(10), dir.resolve("widened"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    String egress =
        Files.readString(dir.resolve("widened/demo/deployment-http-client-egress.yaml"));
    assertThat(egress)
        .contains(
            String.join(
                "\n",
                "      - ipBlock:",
                "          cidr: \"0.0.0.0/0\"",
                "          except:",
                "          - \"10.244.0.0/16\"",
                "          - \"10.96.0.0/12\""))
        .contains("cidr: \"::/0\"")
        .doesNotContain("/32")
        // One rule, its evidence the sum of the eleven addresses' and their names.
        .contains(
            String.join(
                "\n",
                "    peer: \"outside-cluster\"",
                "    ports:",
                "    - protocol: \"TCP\"",
                "      port: \"443\"",
                "      firstSeen: \"2026-08-03T15:40:10Z\"",
                "      lastSeen: \"2026-08-03T15:41:10Z\"",
                "      count: 11",
                "      seenAs:",
                "      - \"source-record\"",
                "    dnsNames:",
                "    - \"api.stripe.com\"",
                "    - \"bucket.s3.amazonaws.com\""))
        .contains("ruleCount: 3");
    assertThat(run.out())
        .doesNotContain("52.216.8.")
        .doesNotContain(STRIPE)
        .doesNotContain("outside rules without except");

    // Without the cluster ranges the widened rule excepts nothing: the summary says so first.
    List<String> args = new ArrayList<>(List.of("learn", "-f", capture(10).toString()));
    args.addAll(
        List.of(
            "--cluster-state",
            sample("cluster-state.json").toString(),
            "--output-dir",
            dir.resolve("unknown-ranges").toString()));
    CliRun bare = CliRun.run(args.toArray(String[]::new));
    assertThat(bare.exitCode()).as(bare.err()).isZero();
    assertThat(bare.out())
        .contains(
            "WARNING: outside rules without except: 1 proposals allow 0.0.0.0/0 and ::/0 on some "
                + "ports, the cluster's own pods and services included");
  }

  @Test
  void tenAddressesStayOneRuleEachAndTheThresholdIsAnOption() throws Exception {
    // 1 + 9 addresses: at the default, not above it.
    CliRun run = learn(capture(9), dir.resolve("kept"));
    assertThat(run.exitCode()).as(run.err()).isZero();
    String egress = Files.readString(dir.resolve("kept/demo/deployment-http-client-egress.yaml"));
    assertThat(egress)
        .contains("cidr: \"" + STRIPE + "/32\"")
        .contains("cidr: \"52.216.8.9/32\"")
        .contains("ruleCount: 12")
        .doesNotContain("0.0.0.0/0");

    // The same capture with a lower threshold is widened.
    CliRun low = learn(capture(9), dir.resolve("low"), "--external-peers-widen-above", "3");
    assertThat(low.exitCode()).as(low.err()).isZero();
    assertThat(Files.readString(dir.resolve("low/demo/deployment-http-client-egress.yaml")))
        .contains("cidr: \"0.0.0.0/0\"")
        .doesNotContain("/32");
  }

  @Test
  void aThresholdOutOfRangeIsRefusedBeforeReading() throws Exception {
    CliRun run = learn(capture(1), dir.resolve("zero"), "--external-peers-widen-above", "0");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("widen-above must be between 1 and 10000").contains("got 0");

    CliRun help = CliRun.run("learn", "--help");
    assertThat(help.out()).contains("--external-peers-widen-above=N");
  }
}
