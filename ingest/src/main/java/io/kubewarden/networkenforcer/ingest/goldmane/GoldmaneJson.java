package io.kubewarden.networkenforcer.ingest.goldmane;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;

/** Reads a Goldmane {@code FlowResult} written as protobuf JSON (proto or camelCase field names). */
public final class GoldmaneJson {
  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();

  private GoldmaneJson() {}

  public static boolean looksLikeGoldmane(JsonNode node) {
    if (node == null || !node.isObject()) {
      return false;
    }
    JsonNode flow = node.get("flow");
    return flow != null && flow.isObject() && (flow.has("Key") || flow.has("key"));
  }

  public static FlowResult decode(String line) throws InvalidProtocolBufferException {
    FlowResult.Builder b = FlowResult.newBuilder();
    PARSER.merge(line, b);
    return b.build();
  }
}
