package io.kubewarden.networkenforcer.ingest.hubble;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Flow;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import java.io.IOException;

/**
 * Reads the JSON that {@code hubble observe -o jsonpb} prints (one {@code GetFlowsResponse} per
 * line, proto field names) and the bare flows of {@code -o json}. Fields newer than our subset are
 * ignored; unknown enum names read as the enum's zero value.
 */
public final class HubbleJson {
  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();

  /** The capture reader's JSON settings (the same limits as its trees). */
  private static final JsonFactory STREAMS = Json.mapper().getFactory();

  private HubbleJson() {}

  /** True when the object looks like a Hubble response or flow. */
  public static boolean looksLikeHubble(JsonNode node) {
    if (node == null || !node.isObject()) {
      return false;
    }
    JsonNode flow = node.get("flow");
    if (flow != null && flow.isObject() && !flow.has("Key") && !flow.has("key")) {
      return true;
    }
    return node.has("node_status")
        || node.has("nodeStatus")
        || node.has("lost_events")
        || node.has("lostEvents")
        || node.has("verdict") && (node.has("IP") || node.has("l4") || node.has("source"));
  }

  public static GetFlowsResponse decode(String line, JsonNode parsed)
      throws InvalidProtocolBufferException {
    if (parsed != null && parsed.isObject()) {
      // The line is parsed already: fill the message from the tree. JsonFormat reads it again only
      // when it is not in the plain form (and then decides, as it always did).
      try {
        return fromTree(parsed);
      } catch (PlainProtoJson.NotPlain | IllegalArgumentException e) {
        // Not plain: JsonFormat below.
      }
    }
    return viaJsonFormat(line, parsed);
  }

  /** The line read by protobuf's JsonFormat, whatever its form. */
  static GetFlowsResponse viaJsonFormat(String line, JsonNode parsed)
      throws InvalidProtocolBufferException {
    if (parsed != null && parsed.isObject() && parsed.has("verdict") && !parsed.has("flow")) {
      Flow.Builder flow = Flow.newBuilder();
      PARSER.merge(line, flow);
      return GetFlowsResponse.newBuilder().setFlow(flow).build();
    }
    GetFlowsResponse.Builder response = GetFlowsResponse.newBuilder();
    PARSER.merge(line, response);
    return response.build();
  }

  /**
   * The message read straight from the line, without a tree, when the line is a plain {@code
   * GetFlowsResponse}; null otherwise (not JSON, not plain, a bare flow), and {@link #decode}
   * decides.
   */
  public static GetFlowsResponse fromLine(String line) {
    try (JsonParser parser = STREAMS.createParser(line)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      GetFlowsResponse.Builder response = GetFlowsResponse.newBuilder();
      // A verdict at the top is a bare Flow ('hubble observe -o json'): the tree path reads it.
      PlainProtoJson.merge(parser, response, "verdict");
      return response.build();
    } catch (IOException | PlainProtoJson.NotPlain | IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * The message from the parsed tree; {@link PlainProtoJson.NotPlain} when it is not in the plain
   * form.
   */
  static GetFlowsResponse fromTree(JsonNode parsed) {
    if (parsed.has("verdict") && !parsed.has("flow")) {
      Flow.Builder flow = Flow.newBuilder();
      PlainProtoJson.merge(parsed, flow);
      return GetFlowsResponse.newBuilder().setFlow(flow).build();
    }
    GetFlowsResponse.Builder response = GetFlowsResponse.newBuilder();
    PlainProtoJson.merge(parsed, response);
    return response.build();
  }
}
