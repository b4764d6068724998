package io.kubewarden.networkenforcer.cli.learn;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Looks at a capture before anything starts: it must exist and hold at least one record, and its
 * format is the one given or the one of the first recognizable line.
 */
public final class CaptureInspection {
  private CaptureInspection() {}

  public static CaptureFormat inspect(Path capture, Optional<CaptureFormat> given) {
    if (!Files.isRegularFile(capture)) {
      throw new LearnInputException("capture file " + capture + " does not exist; fix --input");
    }
    if (!Files.isReadable(capture)) {
      throw new LearnInputException("capture file " + capture + " is not readable; fix its permissions");
    }
    boolean anyLine = false;
    try (BufferedReader reader = Files.newBufferedReader(capture, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        anyLine = true;
        if (given.isPresent()) {
          return given.get();
        }
        Optional<CaptureFormat> detected = detect(line);
        if (detected.isPresent()) {
          return detected.get();
        }
      }
    } catch (IOException e) {
      throw new LearnInputException("cannot read capture file " + capture + ": " + e.getMessage()
          + " (it must be UTF-8 text, one JSON record per line)");
    }
    if (!anyLine) {
      throw new LearnInputException("capture file " + capture + " is empty; record flows first, for example "
          + "'hubble observe -o jsonpb --last 10000 > " + capture.getFileName() + "'");
    }
    throw new LearnInputException("no line of " + capture + " is a Hubble (hubble observe -o jsonpb), Goldmane "
        + "(FlowResult JSON) or ztunnel (JSON access log) record; check the file, or name its format with "
        + "--format hubble|goldmane|ztunnel");
  }

  private static Optional<CaptureFormat> detect(String line) {
    try {
      JsonNode node = Json.mapper().readTree(line);
      return node != null && node.isObject() ? CaptureFormat.detect(node) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
