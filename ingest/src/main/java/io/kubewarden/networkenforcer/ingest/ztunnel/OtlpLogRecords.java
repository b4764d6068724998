package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.AnyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.KeyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.LogRecord;
import java.io.IOException;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * Rebuilds the ztunnel JSON line from an OTLP log record as fluent-bit sends it (wire-formats D.3):
 * (a) body kvlist with the ztunnel keys at the root, (b) body kvlist whose {@code log} string is
 * the raw JSON line, (c) body string with the raw JSON and the other keys as attributes. In (b) and
 * (c) the raw line may also be ztunnel's default text format ({@link ZtunnelTextLog}).
 */
public final class OtlpLogRecords {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private OtlpLogRecords() {}

  /** The ztunnel line as a JSON object, or null when the record carries no JSON object at all. */
  public static ObjectNode toLine(LogRecord record) {
    AnyValue body = record.hasBody() ? record.getBody() : AnyValue.getDefaultInstance();
    ObjectNode line;
    switch (body.getValueCase()) {
      case KVLIST_VALUE -> {
        line = object(body.getKvlistValue().getValuesList());
        JsonNode log = line.get("log");
        if (!line.has("message") && log != null && log.isTextual()) {
          ObjectNode parsed = parseLine(log.asText());
          if (parsed != null) {
            line = parsed;
          }
        }
      }
      case STRING_VALUE -> {
        line = parseLine(body.getStringValue());
        if (line == null) {
          return null;
        }
      }
      case VALUE_NOT_SET -> line = NODES.objectNode();
      default -> {
        return null;
      }
    }
    // Keys moved to attributes (logs_body_key_attributes) fill what the body lacks.
    for (KeyValue attribute : record.getAttributesList()) {
      if (!line.has(attribute.getKey())) {
        line.set(attribute.getKey(), json(attribute.getValue()));
      }
    }
    return line.isEmpty() ? null : line;
  }

  /**
   * The record's event time: fluent-bit's timestamp, else the observed time; null when neither is
   * set.
   */
  public static Instant time(LogRecord record) {
    long nanos =
        record.getTimeUnixNano() != 0 ? record.getTimeUnixNano() : record.getObservedTimeUnixNano();
    if (nanos == 0) {
      return null;
    }
    // fixed64 arrives as a signed long; times after 2262 do not occur.
    return Instant.ofEpochSecond(
        Long.divideUnsigned(nanos, 1_000_000_000L), Long.remainderUnsigned(nanos, 1_000_000_000L));
  }

  /** A JSON log line, or ztunnel's default text format (when fluent-bit forwards it unparsed). */
  private static ObjectNode parseLine(String text) {
    ObjectNode json = parseObject(text);
    return json != null ? json : ZtunnelTextLog.toJson(text.strip());
  }

  private static ObjectNode parseObject(String text) {
    String t = text.strip();
    if (!t.startsWith("{")) {
      return null;
    }
    try {
      JsonNode node = Json.mapper().readTree(t);
      return node != null && node.isObject() ? (ObjectNode) node : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static ObjectNode object(List<KeyValue> values) {
    ObjectNode o = NODES.objectNode();
    for (KeyValue kv : values) {
      o.set(kv.getKey(), json(kv.getValue()));
    }
    return o;
  }

  static JsonNode json(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> NODES.textNode(value.getStringValue());
      case BOOL_VALUE -> NODES.booleanNode(value.getBoolValue());
      case INT_VALUE -> NODES.numberNode(value.getIntValue());
      case DOUBLE_VALUE -> NODES.numberNode(value.getDoubleValue());
      case BYTES_VALUE ->
          NODES.textNode(Base64.getEncoder().encodeToString(value.getBytesValue().toByteArray()));
      case KVLIST_VALUE -> object(value.getKvlistValue().getValuesList());
      case ARRAY_VALUE -> {
        ArrayNode a = NODES.arrayNode();
        value.getArrayValue().getValuesList().forEach(v -> a.add(json(v)));
        yield a;
      }
      default -> NODES.nullNode();
    };
  }
}
