package io.kubewarden.networkenforcer.ingest.file;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneFlowParser;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneJson;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleFlowParser;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleJson;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
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
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

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

  public CaptureFile(
      ClusterView view,
      String trustDomain,
      DeadLetterSink deadLetters,
      IngestMetrics metrics,
      Clock clock) {
    this.resolver = new WorkloadResolver(view);
    this.trustDomain = trustDomain;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Reads with trust domain {@code cluster.local}, bad lines only counted in the summary. */
  public static CaptureSummary read(
      Path path, Optional<CaptureFormat> format, ClusterView view, FlowSink sink) {
    return new CaptureFile(
            view,
            "cluster.local",
            DeadLetterSink.discard(),
            new IngestMetrics(new SimpleMeterRegistry()),
            Clock.systemUTC())
        .read(path, format, sink);
  }

  /**
   * Reads a file or a directory of rotated files, gzip or plain, UTF-8 or UTF-16 ({@link
   * CaptureInput}).
   */
  public CaptureSummary read(Path path, Optional<CaptureFormat> format, FlowSink sink) {
    try (BufferedReader reader = CaptureInput.open(path)) {
      return read(reader, path.getFileName().toString(), format, sink);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read capture file " + path + ": " + e.getMessage(), e);
    }
  }

  public CaptureSummary read(
      BufferedReader reader, String name, Optional<CaptureFormat> format, FlowSink sink)
      throws IOException {
    Reading run = reading(format, sink);
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

  /**
   * A read whose lines are decoded elsewhere ({@link #decode}, on any thread) and handed in here in
   * file order: resolution, de-duplication and counting stay sequential, so the result is the one
   * of {@link #read}.
   */
  public Reading reading(Optional<CaptureFormat> format, FlowSink sink) {
    return new Reading(format.orElse(null), sink);
  }

  /**
   * One non-blank line turned into its provider message (or why it cannot be): JSON parsing and the
   * protobuf decode, the costly part of a read. Stateless and thread-safe.
   *
   * @param format the capture's format; null detects it from this line
   */
  public static DecodedLine decode(long number, String line, CaptureFormat format) {
    if (format == CaptureFormat.HUBBLE) {
      // Most Hubble lines are plain: read straight into the message, no tree. Any other line (and
      // one
      // that is not JSON at all) takes the path below, which reads or refuses it as it always did.
      GetFlowsResponse plain = HubbleJson.fromLine(line);
      if (plain != null) {
        return new DecodedLine(number, line, format, plain, null, null);
      }
    }
    // ztunnel's default log format is key=value text; it becomes the object its JSON format gives.
    JsonNode node = ZtunnelTextLog.looksLikeText(line) ? ZtunnelTextLog.toJson(line) : null;
    if (node == null) {
      try {
        node = MAPPER.readTree(line);
      } catch (IOException | RuntimeException e) {
        return DecodedLine.bad(number, line, null, "not JSON", e);
      }
    }
    if (node == null || !node.isObject()) {
      return DecodedLine.bad(number, line, null, "not a JSON object", null);
    }
    CaptureFormat f = format != null ? format : CaptureFormat.detect(node).orElse(null);
    if (f == null) {
      return DecodedLine.bad(number, line, null, "not a Hubble, Goldmane or ztunnel record", null);
    }
    try {
      Object message =
          switch (f) {
            case HUBBLE -> HubbleJson.decode(line, node);
            case GOLDMANE -> GoldmaneJson.decode(line, node);
            case ZTUNNEL -> node;
          };
      return new DecodedLine(number, line, f, message, null, null);
    } catch (IOException | RuntimeException e) {
      return DecodedLine.bad(
          number, line, f, "not a valid " + f.source() + " record: " + e.getMessage(), e);
    }
  }

  /**
   * A decoded line: the message of {@code format} ({@code GetFlowsResponse}, {@code FlowResult} or
   * the ztunnel {@code JsonNode}), or the reason it is unreadable.
   */
  public record DecodedLine(
      long number,
      String line,
      CaptureFormat format,
      Object message,
      String error,
      Throwable cause) {
    static DecodedLine bad(
        long number, String line, CaptureFormat format, String error, Throwable cause) {
      return new DecodedLine(number, line, format, null, error, cause);
    }
  }

  /** The state of one read: lines go in in file order. */
  public final class Reading {
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
    private final SortedSet<String> unreadableNodes = new TreeSet<>();

    Reading(CaptureFormat format, FlowSink sink) {
      this.format = format;
      this.intake = new FlowIntake(List.of(sink), deadLetters, metrics);
    }

    void line(long number, String line) {
      accept(decode(number, line, format));
    }

    /** The next non-blank line of the file, decoded. */
    public void accept(DecodedLine decoded) {
      lines++;
      if (format == null) {
        format = decoded.format();
      }
      if (decoded.error() != null) {
        bad(decoded.number(), decoded.line(), decoded.error(), decoded.cause());
        return;
      }
      ParseOutcome outcome;
      try {
        outcome =
            switch (format) {
              case HUBBLE -> hubble.parse((GetFlowsResponse) decoded.message());
              case GOLDMANE -> goldmane.parse((FlowResult) decoded.message());
              case ZTUNNEL -> ztunnel.parse((JsonNode) decoded.message(), null);
            };
      } catch (RuntimeException e) {
        bad(
            decoded.number(),
            decoded.line(),
            "not a valid " + format.source() + " record: " + e.getMessage(),
            e);
        return;
      }
      if (outcome.isDropped()) {
        dropped.merge(outcome.dropReason(), 1L, Long::sum);
      }
      lostEvents += outcome.lostEvents();
      if (outcome.nodeStatus() != null && !outcome.nodeStatus().readable()) {
        unreadableNodes.addAll(outcome.nodeStatus().nodes());
      }
      if (outcome.records().stream().anyMatch(r -> r.src().inferred() || r.dst().inferred())) {
        inferredFlows++;
      }
      intake.accept(format.source(), outcome, decoded::line);
    }

    private void bad(long number, String line, String reason, Throwable error) {
      bad++;
      if (errors.size() < MAX_ERRORS) {
        errors.add("line " + number + ": " + reason);
      }
      // The line number travels with the reason so a dead letter can be found in the file again.
      intake.invalid(
          format == null ? "file" : format.source(), "line " + number + ": " + reason, line, error);
    }

    public CaptureSummary summary() {
      return new CaptureSummary(
          format,
          lines,
          intake.publishedCount(),
          dropped,
          bad,
          errors,
          lostEvents,
          inferredFlows,
          unreadableNodes);
    }
  }
}
