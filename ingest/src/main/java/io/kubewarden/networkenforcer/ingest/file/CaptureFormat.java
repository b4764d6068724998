package io.kubewarden.networkenforcer.ingest.file;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneJson;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleJson;
import io.kubewarden.networkenforcer.ingest.ztunnel.ZtunnelLogParser;
import io.kubewarden.networkenforcer.ingest.ztunnel.ZtunnelTextLog;
import java.io.IOException;
import java.util.Locale;
import java.util.Optional;

/** The three capture formats, one record per line. */
public enum CaptureFormat {
  /**
   * {@code hubble observe -o jsonpb}: one GetFlowsResponse per line (also bare flows of {@code -o
   * json}).
   */
  HUBBLE,
  /** One Goldmane FlowResult or bare Flow per line, protobuf JSON. */
  GOLDMANE,
  /** ztunnel log lines: its default text format or JSON ({@code LOG_FORMAT=json}). */
  ZTUNNEL;

  /** The format of one raw line: JSON of any format, or a ztunnel text log line. */
  public static Optional<CaptureFormat> detect(String line) {
    if (ZtunnelTextLog.looksLikeText(line)) {
      return Optional.of(ZTUNNEL);
    }
    try {
      JsonNode node = Json.mapper().readTree(line);
      return node != null && node.isObject() ? detect(node) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The format one parsed line belongs to, if it is recognizable. */
  public static Optional<CaptureFormat> detect(JsonNode line) {
    if (GoldmaneJson.looksLikeGoldmane(line)) {
      return Optional.of(GOLDMANE);
    }
    if (HubbleJson.looksLikeHubble(line)) {
      return Optional.of(HUBBLE);
    }
    if (ZtunnelLogParser.looksLikeZtunnel(line)) {
      return Optional.of(ZTUNNEL);
    }
    return Optional.empty();
  }

  /** Parses {@code hubble|cilium}, {@code goldmane|calico}, {@code ztunnel|istio}. */
  public static CaptureFormat parse(String text) {
    return switch (text == null ? "" : text.trim().toLowerCase(Locale.ROOT)) {
      case "hubble", "cilium" -> HUBBLE;
      case "goldmane", "calico" -> GOLDMANE;
      case "ztunnel", "istio" -> ZTUNNEL;
      default ->
          throw new IllegalArgumentException(
              "capture format '"
                  + text
                  + "' is not one of hubble (cilium), goldmane (calico), ztunnel (istio)");
    };
  }

  /** The metric source tag of this format's records. */
  public String source() {
    return name().toLowerCase(Locale.ROOT);
  }
}
