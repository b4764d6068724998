package io.kubewarden.networkenforcer.ingest.benchmark;

import com.google.protobuf.util.JsonFormat;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneFlowParser;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleFlowParser;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.AnyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.LogRecord;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ResourceLogs;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ScopeLogs;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterSink;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterStateFile;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.ztunnel.OtlpLogIngestor;
import io.kubewarden.networkenforcer.ingest.ztunnel.ZtunnelLogParser;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Ingest figures of issue #11 (BENCHMARKS.md "Ingest"), one thread, Kafka excluded: how many
 * messages per second protobuf parsing alone does, against decode + resolve + publish (the flow
 * record serialized for the flows topic, as the producer does on the calling thread) of the same
 * messages. Prints {@code name: value} lines; asserts nothing.
 *
 * <pre>
 * IngestBenchmark HUBBLE_CAPTURE CLUSTER_STATE SAMPLES_DIR [MESSAGES]
 * </pre>
 *
 * Hubble messages are the capture's lines (a generated, realistic capture: many workloads, records
 * without workloads, replies, drops) converted to protobuf; Goldmane and ztunnel (OTLP) messages
 * are the sample records against the sample cluster state, with their ports varied.
 */
public final class IngestBenchmark {
  private static final int ROUNDS = 5;

  private IngestBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path capture = Path.of(args[0]);
    ClusterView bigCluster = ClusterStateFile.load(Path.of(args[1]));
    Path samples = Path.of(args[2]);
    int messages = args.length > 3 ? Integer.parseInt(args[3]) : 200_000;
    Topic<String, FlowRecord> flows = new Topics(Topics.DEFAULT_PREFIX).flows();

    List<byte[]> hubble = hubbleMessages(capture, messages);
    figures(
        "hubble",
        hubble,
        bytes -> GetFlowsResponse.parseFrom(bytes).getFlow().getTime().getNanos(),
        sink -> {
          HubbleFlowParser parser =
              new HubbleFlowParser(new WorkloadResolver(bigCluster), Clock.systemUTC());
          FlowIntake intake = intake(sink);
          return bytes -> intake.accept("hubble", parser.parse(GetFlowsResponse.parseFrom(bytes)));
        },
        flows);
    System.out.println("ingest/protobuf ratio: " + lastRatio);

    ClusterView sampleCluster = ClusterStateFile.load(samples.resolve("cluster-state.json"));
    List<byte[]> goldmane = goldmaneMessages(samples.resolve("goldmane-flows.jsonl"), messages / 4);
    figures(
        "goldmane",
        goldmane,
        bytes -> FlowResult.parseFrom(bytes).getFlow().getStartTime(),
        sink -> {
          GoldmaneFlowParser parser =
              new GoldmaneFlowParser(new WorkloadResolver(sampleCluster), Clock.systemUTC());
          FlowIntake intake = intake(sink);
          return bytes -> intake.accept("goldmane", parser.parse(FlowResult.parseFrom(bytes)));
        },
        flows);

    List<byte[]> otlp = otlpRequests(samples.resolve("ztunnel.jsonl"), messages / 4);
    figures(
        "otlp",
        otlp,
        bytes -> ExportLogsServiceRequest.parseFrom(bytes).getResourceLogsCount(),
        sink -> {
          OtlpLogIngestor ingestor =
              new OtlpLogIngestor(
                  new ZtunnelLogParser(
                      new WorkloadResolver(sampleCluster), "cluster.local", Clock.systemUTC()),
                  intake(sink));
          return bytes -> ingestor.export(bytes);
        },
        flows);
  }

  private static String lastRatio;

  /** Keeps the JIT from dropping work whose result nobody reads. */
  static volatile long blackhole;

  /** A message handler that may throw (protobuf's checked exception). */
  interface Handler {
    long handle(byte[] bytes) throws Exception;
  }

  interface Pipeline {
    void handle(byte[] bytes) throws Exception;
  }

  interface PipelineFactory {
    Pipeline create(FlowSink sink);
  }

  private static void figures(
      String name,
      List<byte[]> messages,
      Handler parseOnly,
      PipelineFactory pipeline,
      Topic<String, FlowRecord> flows)
      throws Exception {
    double parseRate = 0;
    double fullRate = 0;
    long published = 0;
    // Alternating rounds so both see the same machine load; the best round of each counts (the
    // figure the code allows, not the noise of a shared machine). Round 0 warms the JIT up.
    for (int round = 0; round <= ROUNDS; round++) {
      long start = System.nanoTime();
      long sum = 0;
      for (byte[] m : messages) {
        sum += parseOnly.handle(m);
      }
      double rate = messages.size() / ((System.nanoTime() - start) / 1e9);
      long[] bytesOut = {sum & 1};
      long[] count = {0};
      Pipeline p =
          pipeline.create(
              record -> {
                bytesOut[0] +=
                    flows.valueSerde().serializer().serialize(flows.name(), record).length;
                count[0]++;
              });
      start = System.nanoTime();
      for (byte[] m : messages) {
        p.handle(m);
      }
      double full = messages.size() / ((System.nanoTime() - start) / 1e9);
      if (round > 0) {
        parseRate = Math.max(parseRate, rate);
        fullRate = Math.max(fullRate, full);
        published = count[0];
      }
      blackhole += bytesOut[0];
    }
    System.out.printf(Locale.ROOT, "ingest/%s messages: %d%n", name, messages.size());
    System.out.printf(
        Locale.ROOT, "ingest/%s flow records published per round: %d%n", name, published);
    System.out.printf(Locale.ROOT, "ingest/%s protobuf parse msgs/s: %.0f%n", name, parseRate);
    System.out.printf(
        Locale.ROOT, "ingest/%s decode+resolve+publish msgs/s: %.0f%n", name, fullRate);
    lastRatio = String.format(Locale.ROOT, "%.2f", fullRate / parseRate);
    System.out.printf(Locale.ROOT, "ingest/%s ratio: %s%n", name, lastRatio);
  }

  private static FlowIntake intake(FlowSink sink) {
    return new FlowIntake(
        List.of(sink), DeadLetterSink.discard(), new IngestMetrics(new SimpleMeterRegistry()));
  }

  private static List<byte[]> hubbleMessages(Path capture, int max) throws Exception {
    JsonFormat.Parser parser = JsonFormat.parser().ignoringUnknownFields();
    List<byte[]> out = new ArrayList<>(max);
    try (BufferedReader reader = Files.newBufferedReader(capture, StandardCharsets.UTF_8)) {
      String line;
      while (out.size() < max && (line = reader.readLine()) != null) {
        GetFlowsResponse.Builder b = GetFlowsResponse.newBuilder();
        parser.merge(line, b);
        out.add(b.build().toByteArray());
      }
    }
    return out;
  }

  private static List<byte[]> goldmaneMessages(Path sample, int count) throws Exception {
    JsonFormat.Parser parser = JsonFormat.parser().ignoringUnknownFields();
    List<FlowResult> templates = new ArrayList<>();
    for (String line : Files.readAllLines(sample)) {
      FlowResult.Builder b = FlowResult.newBuilder();
      parser.merge(line, b);
      templates.add(b.build());
    }
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      FlowResult t = templates.get(i % templates.size());
      FlowResult.Builder b = t.toBuilder();
      // Each 15 s bucket again: new flows for the same workloads.
      b.getFlowBuilder()
          .setStartTime(t.getFlow().getStartTime() + 15L * (i / templates.size()))
          .setEndTime(t.getFlow().getEndTime() + 15L * (i / templates.size()));
      out.add(b.build().toByteArray());
    }
    return out;
  }

  /** One fluent-bit export per log line (its usual batching is larger, which only helps). */
  private static List<byte[]> otlpRequests(Path sample, int count) throws Exception {
    List<String> lines = Files.readAllLines(sample);
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String line =
          lines
              .get(i % lines.size())
              .replaceFirst(
                  "\"src.addr\":\"([0-9.]+):\\d+\"",
                  "\"src.addr\":\"$1:" + (20000 + i % 40000) + "\"");
      LogRecord record =
          LogRecord.newBuilder()
              .setTimeUnixNano(1_785_771_600_000_000_000L + i * 1_000_000L)
              .setBody(AnyValue.newBuilder().setStringValue(line))
              .build();
      out.add(
          ExportLogsServiceRequest.newBuilder()
              .addResourceLogs(
                  ResourceLogs.newBuilder()
                      .addScopeLogs(ScopeLogs.newBuilder().addLogRecords(record)))
              .build()
              .toByteArray());
    }
    return out;
  }
}
