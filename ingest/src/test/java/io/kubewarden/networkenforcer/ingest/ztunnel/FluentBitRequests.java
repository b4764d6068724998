package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.AnyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.ArrayValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.InstrumentationScope;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.KeyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.KeyValueList;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.LogRecord;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ResourceLogs;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ScopeLogs;
import io.kubewarden.networkenforcer.ingest.proto.otlp.resource.Resource;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Builds OTLP export requests the way fluent-bit's opentelemetry output does for ztunnel lines read
 * by tail + CRI parser (wire-formats D.2/D.3): one ResourceLogs with an empty Resource, one
 * ScopeLogs with an empty scope.
 */
final class FluentBitRequests {
  private FluentBitRequests() {}

  static ExportLogsServiceRequest request(List<LogRecord> records) {
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(Resource.getDefaultInstance())
                .addScopeLogs(
                    ScopeLogs.newBuilder()
                        .setScope(InstrumentationScope.getDefaultInstance())
                        .addAllLogRecords(records)))
        .build();
  }

  /**
   * Shape (a): JSON lifted to the root (parser filter / kubernetes Merge_Log), time moved to the
   * record.
   */
  static LogRecord merged(String ztunnelLine) throws Exception {
    ObjectNode line = (ObjectNode) Json.mapper().readTree(ztunnelLine);
    Instant time = Instant.parse(line.remove("time").asText());
    KeyValueList.Builder body =
        KeyValueList.newBuilder()
            .addValues(kv("stream", string("stdout")))
            .addValues(kv("_p", string("F")));
    line.fields().forEachRemaining(e -> body.addValues(kv(e.getKey(), value(e.getValue()))));
    body.addValues(
        kv(
            "kubernetes",
            AnyValue.newBuilder()
                .setKvlistValue(
                    KeyValueList.newBuilder()
                        .addValues(kv("pod_name", string("ztunnel-abcde")))
                        .addValues(kv("namespace_name", string("istio-system")))
                        .addValues(
                            kv(
                                "labels",
                                AnyValue.newBuilder()
                                    .setKvlistValue(
                                        KeyValueList.newBuilder()
                                            .addValues(kv("app", string("ztunnel"))))
                                    .build())))
                .build()));
    return LogRecord.newBuilder()
        .setTimeUnixNano(time.getEpochSecond() * 1_000_000_000L + time.getNano())
        .setBody(AnyValue.newBuilder().setKvlistValue(body))
        .build();
  }

  /** Shape (b): no merge, the raw line stays a string in {@code log}. */
  static LogRecord unmerged(String ztunnelLine) {
    return LogRecord.newBuilder()
        .setTimeUnixNano(1_785_771_600_000_000_000L)
        .setBody(
            AnyValue.newBuilder()
                .setKvlistValue(
                    KeyValueList.newBuilder()
                        .addValues(kv("stream", string("stdout")))
                        .addValues(kv("_p", string("F")))
                        .addValues(kv("log", string(ztunnelLine)))))
        .build();
  }

  /** Shape (c): {@code logs_body_key $log} with {@code logs_body_key_attributes on}. */
  static LogRecord bodyString(String ztunnelLine) {
    return LogRecord.newBuilder()
        .setTimeUnixNano(1_785_771_600_000_000_000L)
        .setBody(string(ztunnelLine))
        .addAttributes(kv("stream", string("stdout")))
        .addAttributes(kv("_p", string("F")))
        .build();
  }

  static LogRecord unrelated() {
    return LogRecord.newBuilder()
        .setBody(
            AnyValue.newBuilder()
                .setKvlistValue(
                    KeyValueList.newBuilder()
                        .addValues(kv("log", string("GET /healthz 200")))
                        .addValues(kv("stream", string("stderr")))))
        .build();
  }

  private static AnyValue value(JsonNode node) {
    if (node.isTextual()) {
      return string(node.asText());
    }
    if (node.isIntegralNumber()) {
      return AnyValue.newBuilder().setIntValue(node.asLong()).build();
    }
    if (node.isNumber()) {
      return AnyValue.newBuilder().setDoubleValue(node.asDouble()).build();
    }
    if (node.isBoolean()) {
      return AnyValue.newBuilder().setBoolValue(node.asBoolean()).build();
    }
    if (node.isArray()) {
      ArrayValue.Builder a = ArrayValue.newBuilder();
      node.forEach(n -> a.addValues(value(n)));
      return AnyValue.newBuilder().setArrayValue(a).build();
    }
    if (node.isObject()) {
      KeyValueList.Builder o = KeyValueList.newBuilder();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        o.addValues(kv(e.getKey(), value(e.getValue())));
      }
      return AnyValue.newBuilder().setKvlistValue(o).build();
    }
    return AnyValue.getDefaultInstance();
  }

  static AnyValue string(String s) {
    return AnyValue.newBuilder().setStringValue(s).build();
  }

  static KeyValue kv(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }
}
