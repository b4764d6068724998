package io.kubewarden.networkenforcer.cli.compose;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;

/**
 * A compose override that publishes every port the compose file publishes, the same container
 * ports, but on 127.0.0.1 and on a host port the engine picks: the test's traffic stays on loopback
 * and parallel builds on one machine do not fight over 8081-8083. ({@code !override} replaces the
 * file's list instead of adding to it.)
 */
final class LoopbackPublishing {

  private LoopbackPublishing() {}

  static Path writeOverride(Path composeFile, Path override) throws IOException {
    JsonNode services = Json.yaml().readTree(composeFile.toFile()).path("services");
    StringBuilder yaml = new StringBuilder("services:\n");
    for (Iterator<Map.Entry<String, JsonNode>> it = services.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> service = it.next();
      JsonNode ports = service.getValue().path("ports");
      if (ports.isEmpty()) {
        continue;
      }
      yaml.append("  ").append(service.getKey()).append(":\n    ports: !override\n");
      for (JsonNode port : ports) {
        if (!port.isTextual()) {
          throw new IllegalArgumentException(
              service.getKey() + ": only the short port syntax is handled: " + port);
        }
        yaml.append("      - \"127.0.0.1::").append(containerPort(port.asText())).append("\"\n");
      }
    }
    Files.writeString(override, yaml);
    return override;
  }

  /** "8081:8080" -> "8080", "127.0.0.1:9092:9092/tcp" -> "9092/tcp", "4317" -> "4317". */
  static String containerPort(String shortSyntax) {
    return shortSyntax.substring(shortSyntax.lastIndexOf(':') + 1);
  }
}
