package io.kubewarden.networkenforcer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterSink;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * What every parser fuzz target checks: an input ends as flow records or as a drop with a reason,
 * and the only exceptions a decoder may raise are the checked ones its callers dead-letter
 * (malformed JSON or protobuf). A runtime exception that a per-line or per-record catch turned into
 * a dead letter still counts as a finding: it means the parser tripped over the input instead of
 * rejecting it.
 */
public final class ParserFuzzing {
  /** A fixed clock: the parsers' windows must not make a finding depend on when it ran. */
  public static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-08-03T15:40:00Z"), ZoneOffset.UTC);

  private static final ClusterIndex CLUSTER = Fixtures.clusterState();

  private ParserFuzzing() {}

  /**
   * Resolves against the basic sample cluster, so inputs that name its pods reach the deeper paths.
   */
  public static WorkloadResolver resolver() {
    return new WorkloadResolver(CLUSTER);
  }

  public static void assertOutcome(ParseOutcome outcome) {
    assertThat(outcome).isNotNull();
    assertThat(outcome.isDropped() || !outcome.records().isEmpty())
        .as("records or a drop reason")
        .isTrue();
  }

  /** A dead letter whose cause is a runtime exception is a parser bug, not a reasoned rejection. */
  public static DeadLetterSink failOnUncheckedCause() {
    return (source, reason, payload, error) -> {
      if (error instanceof RuntimeException || error instanceof Error) {
        throw new AssertionError(
            "input dead-lettered after an unchecked "
                + error.getClass().getName()
                + " ("
                + reason
                + ")",
            error);
      }
      assertThat(reason).isNotBlank();
    };
  }

  /**
   * Reads the input as a capture file of the given format, the way {@code learn} and {@code ingest
   * --file} do: every line is counted as published, dropped with a reason, or bad.
   */
  public static CaptureSummary readCapture(byte[] input, CaptureFormat format) {
    CaptureFile capture =
        new CaptureFile(
            CLUSTER,
            "cluster.local",
            failOnUncheckedCause(),
            new IngestMetrics(new SimpleMeterRegistry()),
            CLOCK);
    String text = new String(input, StandardCharsets.UTF_8);
    try (BufferedReader reader = new BufferedReader(new StringReader(text))) {
      CaptureSummary summary =
          capture.read(reader, "fuzz-input", Optional.of(format), record -> {});
      long nonBlank = text.lines().filter(l -> !l.isBlank()).count();
      assertThat(summary.lines()).isEqualTo(nonBlank);
      return summary;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
