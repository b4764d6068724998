package io.kubewarden.networkenforcer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Problems found before any work is done, each with a message that names what to fix. */
class FailEarlyTest {
  @TempDir Path dir;

  @Test
  void aNonEmptyOutputDirectoryIsRefusedBeforeTheCaptureIsRead() throws Exception {
    Path out = Files.createDirectories(dir.resolve("out"));
    Files.writeString(out.resolve("notes.txt"), "mine");
    AtomicLong read = new AtomicLong();
    InputStream saved = System.in;
    System.setIn(
        new InputStream() {
          @Override
          public int read() {
            read.incrementAndGet();
            return -1;
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            read.incrementAndGet();
            return -1;
          }
        });
    CliRun run;
    try {
      run = CliRun.run("learn", "-f", "-", "--output-dir", out.toString());
    } finally {
      System.setIn(saved);
    }
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("--output-dir " + out + " is not empty (1 entries, for example notes.txt)");
    assertThat(read.get()).as("reads of standard input").isZero();

    Path file = Files.writeString(dir.resolve("a-file"), "x");
    CliRun under =
        CliRun.run(
            "learn",
            "-f",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--output-dir",
            file.resolve("proposals").toString());
    assertThat(under.exitCode()).isEqualTo(2);
    assertThat(under.err())
        .contains(
            "--output-dir "
                + file.resolve("proposals")
                + " cannot be created: "
                + file
                + " is a file");
  }

  @Test
  void anUnknownConfigKeyIsRefusedWithTheClosestOption() throws Exception {
    Path config =
        Files.writeString(
            dir.resolve("ne.yaml"), "kafka-bootstrap-server: kafka:9092\nprovider: cilium\n");
    CliRun run =
        CliRun.runWithConfigFile(
            Map.of(),
            config,
            "processor",
            "--config",
            config.toString(),
            "--state-dir",
            dir.toString(),
            "--check-config");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith(
            "error: config file "
                + config
                + ": 'kafka-bootstrap-server' is not an option "
                + "of network-enforcer processor (did you mean 'kafka-bootstrap-servers'?)");

    Path learn =
        Files.writeString(
            dir.resolve("learn.yaml"), "output-dir: " + dir.resolve("out") + "\nbackround: x\n");
    CliRun other =
        CliRun.runWithConfigFile(
            Map.of(),
            learn,
            "learn",
            "--config",
            learn.toString(),
            "-f",
            CliRun.sample("hubble-flows.jsonl").toString());
    assertThat(other.exitCode()).isEqualTo(2);
    assertThat(other.err()).contains("'backround' is not an option of network-enforcer learn");
    assertThat(dir.resolve("out")).doesNotExist();

    // A correct file passes.
    Path good =
        Files.writeString(
            dir.resolve("good.yaml"), "kafka-bootstrap-servers: kafka:9092\nprovider: cilium\n");
    assertThat(
            CliRun.runWithConfigFile(
                    Map.of(),
                    good,
                    "processor",
                    "--config",
                    good.toString(),
                    "--state-dir",
                    dir.toString(),
                    "--check-config")
                .exitCode())
        .isZero();
  }

  @Test
  void aClusterStateWithoutPodsIsWarnedAbout() throws Exception {
    Path state =
        Files.writeString(
            dir.resolve("state.json"),
            """
        {"apiVersion": "v1", "kind": "List", "items": [
          {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}]}
        """);
    CliRun run =
        CliRun.run(
            "learn",
            "-f",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--cluster-state",
            state.toString(),
            "--output-dir",
            dir.resolve("out").toString());
    assertThat(run.err())
        .contains("warning: cluster-state file " + state + " holds no pod")
        .contains("kubectl get ns,deploy,sts,ds,rs,pods -A -o json");
  }

  @Test
  void aTruncatedGzipIsLearnedUpToTheBreakWhichIsNamed() throws Exception {
    // 30 copies of the sample, gzip-compressed, then cut to 3,000 bytes: a copy that stopped short.
    String sample = Files.readString(CliRun.sample("hubble-flows.jsonl"));
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      for (int i = 0; i < 30; i++) {
        out.write(sample.getBytes(StandardCharsets.UTF_8));
      }
    }
    Path capture =
        Files.write(dir.resolve("capture.jsonl.gz"), Arrays.copyOf(gz.toByteArray(), 3000));
    long totalLines = 30L * sample.lines().count();

    CliRun run =
        CliRun.run(
            "learn",
            "-f",
            capture.toString(),
            "--cluster-state",
            CliRun.sample("cluster-state.json").toString(),
            "--output-dir",
            dir.resolve("out").toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    Matcher m =
        Pattern.compile(
                "^WARNING: capture "
                    + Pattern.quote(capture.toString())
                    + " breaks off after line (\\d+) \\(Unexpected end of ZLIB input stream\\): learned from "
                    + "the \\1 lines before the break")
            .matcher(run.out());
    assertThat(m.find()).as(run.out()).isTrue();
    long before = Long.parseLong(m.group(1));
    assertThat(before).isBetween(1L, totalLines - 1);
    assertThat(run.out())
        .contains("records read:        " + before)
        .contains("proposals written:   3");
    try (var files = Files.walk(dir.resolve("out"))) {
      assertThat(files.filter(f -> f.toString().endsWith(".yaml"))).hasSize(3);
    }
  }

  @Test
  void unreachableKafkaIsNamedWithinTenSeconds() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    Path policy =
        Files.writeString(
            dir.resolve("p.yaml"),
            """
        kind: NetworkPolicy
        metadata: {name: x, namespace: demo}
        spec: {podSelector: {}}
        """);
    String servers = "127.0.0.1:" + closed;
    for (String[] args :
        new String[][] {
          {
            "simulate",
            "-f",
            policy.toString(),
            "--from",
            "1h",
            "--kafka-bootstrap-servers",
            servers
          },
          {
            "replay",
            "--from",
            "1h",
            "--provider",
            "cilium",
            "--output-dir",
            dir.resolve("r").toString(),
            "--kafka-bootstrap-servers",
            servers
          }
        }) {
      long start = System.nanoTime();
      CliRun run = CliRun.run(args);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(run.exitCode()).as(args[0] + ": " + run.err()).isEqualTo(1);
      assertThat(run.err())
          .as(args[0])
          .contains("Kafka at " + servers + " did not answer within 10 s")
          .contains("--kafka-bootstrap-servers (NE_KAFKA_BOOTSTRAP_SERVERS)");
      assertThat(took).as(args[0]).isLessThan(Duration.ofSeconds(15));
    }

    CliRun unset = CliRun.run("simulate", "-f", policy.toString(), "--from", "1h");
    assertThat(unset.exitCode()).isEqualTo(2);
    assertThat(unset.err())
        .contains("kafka bootstrap servers are not set")
        .contains("NE_KAFKA_BOOTSTRAP_SERVERS")
        .doesNotContain("(or KAFKA_BOOTSTRAP_SERVERS)");
  }
}
