package io.kubewarden.networkenforcer.cli.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Kubernetes objects of a YAML file: every document, with the items of a {@code kind: List}
 * (what {@code kubectl get -o yaml} prints) taken one by one. A file that is missing, not YAML or
 * empty is refused with a message naming the option to fix.
 */
public final class PolicyDocuments {
  private PolicyDocuments() {}

  /** @param option the option that named the file, for messages ({@code --policy}) */
  public static List<JsonNode> read(Path file, String option, String expectedKinds) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException(option + " file " + file + " does not exist; fix " + option);
    }
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it = Json.yaml().readerFor(JsonNode.class).readValues(file.toFile())) {
      while (it.hasNext()) {
        JsonNode doc = it.next();
        if (doc == null || doc.isNull() || doc.isMissingNode()) {
          continue;
        }
        if ("List".equals(doc.path("kind").asText()) && doc.path("items").isArray()) {
          doc.path("items").forEach(documents::add);
        } else {
          documents.add(doc);
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(option + " file " + file + " is not YAML: " + firstLine(e.getMessage()));
    }
    if (documents.isEmpty()) {
      throw new ConfigException(option + " file " + file + " holds no document; " + option + " takes a "
          + expectedKinds);
    }
    return documents;
  }

  public static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
