package io.kubewarden.networkenforcer.ingest.goldmane;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.Flow;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;

/**
 * Reads Goldmane records written as protobuf JSON (proto or camelCase field names): a {@code
 * FlowResult} ({@code {"id":..,"flow":{"Key":..}}}, what {@code Flows/Stream} and {@code
 * Flows/List} return) or a bare {@code Flow} ({@code {"Key":..,"start_time":..}}, what Goldmane's
 * flow emitter, Whisker and flow-log exporters hand out). Both decode to a FlowResult.
 */
public final class GoldmaneJson {
  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();

  private GoldmaneJson() {}

  public static boolean looksLikeGoldmane(JsonNode node) {
    if (node == null || !node.isObject()) {
      return false;
    }
    JsonNode flow = node.get("flow");
    return flow != null && flow.isObject() && hasKey(flow) || isBareFlow(node);
  }

  /** A {@code Flow} on its own: its {@code Key} object at the top. */
  public static boolean isBareFlow(JsonNode node) {
    return node != null && node.isObject() && !node.has("flow") && hasKey(node);
  }

  private static boolean hasKey(JsonNode node) {
    JsonNode key = node.has("Key") ? node.get("Key") : node.get("key");
    return key != null && key.isObject();
  }

  public static FlowResult decode(String line) throws InvalidProtocolBufferException {
    FlowResult.Builder b = FlowResult.newBuilder();
    PARSER.merge(line, b);
    return b.build();
  }

  /**
   * Decodes either shape; {@code parsed} is the line already read as JSON (null to read it here).
   */
  public static FlowResult decode(String line, JsonNode parsed)
      throws InvalidProtocolBufferException {
    if (isBareFlow(parsed)) {
      Flow.Builder flow = Flow.newBuilder();
      PARSER.merge(line, flow);
      return FlowResult.newBuilder().setFlow(flow).build();
    }
    return decode(line);
  }
}
