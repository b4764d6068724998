package io.kubewarden.networkenforcer.ingest.file;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.DropReason;
import io.kubewarden.networkenforcer.ingest.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneFlowParser;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneJson;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleFlowParser;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleJson;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterSink;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.ztunnel.ZtunnelLogParser;
import io.kubewarden.networkenforcer.ingest.ztunnel.ZtunnelTextLog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a capture file (one record per line, in one of the {@link CaptureFormat}s), resolves each
 * record against a {@link ClusterView} and hands the flow records to a sink. The format is detected
 * from the first recognizable line unless given. A line that cannot be decoded is counted and sent
 * to the dead-letter sink; it never stops the read.
 */
public final class CaptureFile {
  private static final int MAX_ERRORS = 20;
  private static final ObjectMapper MAPPER = Json.mapper();

  private final WorkloadResolver resolver;
  private final String trustDomain;
  private final DeadLetterSink deadLetters;
  private final IngestMetrics metrics;
  private final Clock clock;

  public CaptureFile(ClusterView view, String trustDomain, DeadLetterSink deadLetters, IngestMetrics metrics,
      Clock clock) {
    this.resolver = new WorkloadResolver(view);
    this.trustDomain = trustDomain;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Reads with trust domain {@code cluster.local}, bad lines only counted in the summary. */
  public static CaptureSummary read(Path path, Optional<CaptureFormat> format, ClusterView view, FlowSink sink) {
    return new CaptureFile(view, "cluster.local", DeadLetterSink.discard(),
        new IngestMetrics(new SimpleMeterRegistry()), Clock.systemUTC()).read(path, format, sink);
  }

  /** Reads a file or a directory of rotated files, gzip or plain, UTF-8 or UTF-16 ({@link CaptureInput}). */
  public CaptureSummary read(Path path, Optional<CaptureFormat> format, FlowSink sink) {
    try (BufferedReader reader = CaptureInput.open(path)) {
      return read(reader, path.getFileName().toString(), format, sink);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read capture file " + path + ": " + e.getMessage(), e);
    }
  }

  public CaptureSummary read(BufferedReader reader, String name, Optional<CaptureFormat> format, FlowSink sink)
      throws IOException {
    Run run = new Run(format.orElse(null), sink);
    String line;
    long number = 0;
    while ((line = reader.readLine()) != null) {
      number++;
      if (!line.isBlank()) {
        run.line(number, line);
      }
    }
    return run.summary();
  }

  /** The state of one read. */
  private final class Run {
    private CaptureFormat format;
    private final FlowIntake intake;
    private final Map<DropReason, Long> dropped = new EnumMap<>(DropReason.class);
    private final List<String> errors = new ArrayList<>();
    private final HubbleFlowParser hubble = new HubbleFlowParser(resolver, clock);
    private final GoldmaneFlowParser goldmane = new GoldmaneFlowParser(resolver, clock);
    private final ZtunnelLogParser ztunnel = new ZtunnelLogParser(resolver, trustDomain, clock);
    private long lines;
    private long bad;
    private long lostEvents;
    private long inferredFlows;

    Run(CaptureFormat format, FlowSink sink) {
      this.format = format;
      this.intake = new FlowIntake(List.of(sink), deadLetters, metrics);
    }

    void line(long number, String line) {
      lines++;
      JsonNode node = ZtunnelTextLog.looksLikeText(line) ? ZtunnelTextLog.toJson(line) : null;
      if (node == null) {
        try {
          node = MAPPER.readTree(line);
        } catch (IOException | RuntimeException e) {
          bad(number, line, "not JSON", e);
          return;
        }
      }
      if (node == null || !node.isObject()) {
        bad(number, line, "not a JSON object", null);
        return;
      }
      if (format == null) {
        format = CaptureFormat.detect(node).orElse(null);
        if (format == null) {
          bad(number, line, "not a Hubble, Goldmane or ztunnel record", null);
          return;
        }
      }
      ParseOutcome outcome;
      try {
        outcome = switch (format) {
          case HUBBLE -> hubble.parse(HubbleJson.decode(line, node));
          case GOLDMANE -> goldmane.parse(GoldmaneJson.decode(line, node));
          case ZTUNNEL -> ztunnel.parse(node, null);
        };
      } catch (IOException | RuntimeException e) {
        bad(number, line, "not a valid " + format.source() + " record: " + e.getMessage(), e);
        return;
      }
      if (outcome.isDropped()) {
        dropped.merge(outcome.dropReason(), 1L, Long::sum);
      }
      lostEvents += outcome.lostEvents();
      if (outcome.records().stream().anyMatch(r -> r.src().inferred() || r.dst().inferred())) {
        inferredFlows++;
      }
      intake.accept(format.source(), outcome, () -> line);
    }

    private void bad(long number, String line, String reason, Throwable error) {
      bad++;
      if (errors.size() < MAX_ERRORS) {
        errors.add("line " + number + ": " + reason);
      }
      // The line number travels with the reason so a dead letter can be found in the file again.
      intake.invalid(format == null ? "file" : format.source(), "line " + number + ": " + reason, line, error);
    }

    CaptureSummary summary() {
      return new CaptureSummary(format, lines, intake.publishedCount(), dropped, bad, errors, lostEvents,
          inferredFlows);
    }
  }
}
