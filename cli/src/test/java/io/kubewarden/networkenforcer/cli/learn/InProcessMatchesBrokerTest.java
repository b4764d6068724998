package io.kubewarden.networkenforcer.cli.learn;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterStateFile;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code learn} runs the processor topology in-process; the broker pipeline it replaced (an
 * embedded KRaft broker, the ingest publisher and Kafka Streams) is the oracle. Both must write
 * byte-identical manifests and the same summary for the sample captures of every format, and for a
 * capture large enough to be decoded in many parallel chunks, with unreadable lines among them.
 */
class InProcessMatchesBrokerTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  @TempDir Path dir;

  @Test
  void hubbleWithClusterState() throws Exception {
    assertSameOutput(sample("hubble-flows.jsonl"), CaptureFormat.HUBBLE, Backend.kubernetes, true);
  }

  @Test
  void hubbleWithSelectorsFromTheCapture() throws Exception {
    assertSameOutput(sample("hubble-flows.jsonl"), CaptureFormat.HUBBLE, Backend.kubernetes, false);
  }

  @Test
  void goldmaneWithClusterState() throws Exception {
    assertSameOutput(
        sample("goldmane-flows.jsonl"), CaptureFormat.GOLDMANE, Backend.kubernetes, true);
  }

  @Test
  void ztunnelWithClusterState() throws Exception {
    assertSameOutput(sample("ztunnel.jsonl"), CaptureFormat.ZTUNNEL, Backend.istio, true);
  }

  @Test
  void manyChunksWithBadLinesKeepFileOrder() throws Exception {
    // 120 copies of the sample, each with other client ports (new connections, so the evidence
    // counts grow and the duplicate-report window sees every copy), and an unreadable line every
    // 997 lines: more than enough parallel chunks for an ordering mistake to change counts or
    // errors.
    List<String> sampleLines = Files.readAllLines(sample("hubble-flows.jsonl"));
    Pattern sourcePort = Pattern.compile("\"source_port\":(\\d+)");
    List<String> lines = new ArrayList<>();
    for (int copy = 0; copy < 120; copy++) {
      for (String line : sampleLines) {
        int shift = copy;
        Matcher m = sourcePort.matcher(line);
        lines.add(
            m.replaceAll(
                r ->
                    "\"source_port\":"
                        + (1024 + (Integer.parseInt(r.group(1)) + shift * 7) % 64000)));
        if (lines.size() % 997 == 0) {
          lines.add("{\"flow\": {\"verdict\": 12345, \"source\": \"not an object\"}}");
        }
      }
    }
    Path capture = dir.resolve("many-chunks.jsonl");
    Files.write(capture, lines);

    String summary = assertSameOutput(capture, CaptureFormat.HUBBLE, Backend.kubernetes, true);
    assertThat(summary)
        .contains("records read:        " + lines.size())
        .contains("unreadable lines:    4");
  }

  /**
   * Runs both pipelines and compares every manifest byte for byte and the summaries; returns the
   * summary.
   */
  private String assertSameOutput(
      Path capture, CaptureFormat format, Backend backend, boolean withClusterState)
      throws Exception {
    Map<String, String> expected;
    String expectedSummary;
    SimpleMeterRegistry brokerRegistry = new SimpleMeterRegistry();
    LearnResult brokerResult;
    try (BrokerPipeline broker = new BrokerPipeline(brokerRegistry)) {
      brokerResult =
          broker.run(capture, format, backend, view(capture, format, withClusterState), TIMEOUT);
    }
    Path brokerDir = dir.resolve("broker");
    expected = manifests(brokerDir, capture, brokerResult);
    expectedSummary =
        summary(
            brokerDir, capture, format, backend, withClusterState, brokerResult, brokerRegistry);

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LearnResult result;
    try (InProcessPipeline pipeline = new InProcessPipeline(registry)) {
      result =
          pipeline.run(
              capture,
              format,
              backend,
              view(capture, format, withClusterState),
              TIMEOUT,
              new LearnProgress(System.err, TimeUnit.HOURS.toNanos(1)));
    }
    Path inProcessDir = dir.resolve("in-process");
    Map<String, String> actual = manifests(inProcessDir, capture, result);
    String actualSummary =
        summary(inProcessDir, capture, format, backend, withClusterState, result, registry);

    assertThat(expected).isNotEmpty();
    assertThat(actual).isEqualTo(expected);
    assertThat(actualSummary).isEqualTo(expectedSummary);
    return actualSummary;
  }

  private static ClusterView view(Path capture, CaptureFormat format, boolean withClusterState) {
    return withClusterState
        ? ClusterStateFile.load(sample("cluster-state.json"))
        : CaptureClusterState.derive(capture, format);
  }

  /** Relative path -> file content. */
  private static Map<String, String> manifests(Path out, Path capture, LearnResult result)
      throws Exception {
    ProposalManifests.write(out, result.proposals().values(), capture.getFileName().toString());
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(out)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(out.relativize(p).toString(), Files.readString(p));
      }
    }
    return files;
  }

  private static String summary(
      Path out,
      Path capture,
      CaptureFormat format,
      Backend backend,
      boolean withClusterState,
      LearnResult result,
      SimpleMeterRegistry registry) {
    var proposals = List.copyOf(result.proposals().values());
    List<Path> files =
        proposals.stream()
            .map(p -> out.resolve(p.namespace()).resolve(p.name() + ".yaml"))
            .toList();
    StringWriter text = new StringWriter();
    new LearnSummary(
            capture,
            format,
            backend,
            withClusterState,
            result.capture(),
            registry,
            proposals,
            files,
            LearningSettings.DEFAULTS)
        .print(new PrintWriter(text, true));
    return text.toString().replace(out.toString(), "OUT");
  }
}
