package io.kubewarden.networkenforcer.cli.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.json.JsonProblem;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The Kubernetes objects named by a manifest option, as {@code kubectl apply -f} takes them: a
 * file, a directory (recursive: its {@code .yaml}, {@code .yml} and {@code .json} files in path
 * order, what {@code learn} writes) or {@code -} for standard input. Every document is taken, with
 * the items of a {@code kind: List} (what {@code kubectl get -o yaml} prints) one by one. A source
 * that is missing, not YAML or empty is refused with a message naming the option to fix.
 */
public final class PolicyDocuments {
  /** The name that reads standard input. */
  public static final String STDIN = "-";

  private PolicyDocuments() {}

  /**
   * One object and where it came from.
   *
   * @param where {@code document N of FILE}, for messages
   */
  public record Document(JsonNode node, String where) {}

  /**
   * @param option the option that named the source, for messages ({@code --policy})
   */
  public static List<Document> read(Path source, String option, String expectedKinds) {
    List<Document> documents = new ArrayList<>();
    String name = source.toString();
    if (name.equals(STDIN)) {
      readStream(System.in, "standard input", option, documents);
    } else if (Files.isDirectory(source)) {
      List<Path> files = manifestFiles(source, option);
      if (files.isEmpty()) {
        throw new ConfigException(
            option
                + " directory "
                + source
                + " holds no .yaml, .yml or .json file; "
                + option
                + " takes a "
                + expectedKinds);
      }
      for (Path file : files) {
        readFile(file, option, documents);
      }
    } else if (Files.isRegularFile(source)) {
      readFile(source, option, documents);
    } else {
      throw new ConfigException(
          option
              + " "
              + source
              + " does not exist; fix "
              + option
              + ": name a file, a "
              + "directory (read recursively) or - for standard input");
    }
    if (documents.isEmpty()) {
      throw new ConfigException(
          option
              + " "
              + (name.equals(STDIN) ? "standard input" : source)
              + " holds no document; "
              + option
              + " takes a "
              + expectedKinds);
    }
    return documents;
  }

  private static List<Path> manifestFiles(Path dir, String option) {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .filter(PolicyDocuments::isManifest)
          .sorted()
          .toList();
    } catch (IOException | UncheckedIOException e) {
      throw new ConfigException(
          "cannot read " + option + " directory " + dir + ": " + e.getMessage());
    }
  }

  private static boolean isManifest(Path file) {
    String n = file.getFileName().toString().toLowerCase(Locale.ROOT);
    return !n.startsWith(".") && (n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json"));
  }

  private static void readFile(Path file, String option, List<Document> into) {
    try (InputStream in = Files.newInputStream(file)) {
      readStream(in, file.toString(), option, into);
    } catch (IOException e) {
      throw new ConfigException("cannot read " + option + " file " + file + ": " + e.getMessage());
    }
  }

  private static void readStream(InputStream in, String name, String option, List<Document> into) {
    int number = 0;
    try (MappingIterator<JsonNode> it = Json.yaml().readerFor(JsonNode.class).readValues(in)) {
      while (it.hasNext()) {
        JsonNode doc = it.next();
        if (doc == null || doc.isNull() || doc.isMissingNode()) {
          continue;
        }
        number++;
        if ("List".equals(doc.path("kind").asText()) && doc.path("items").isArray()) {
          for (JsonNode item : doc.path("items")) {
            into.add(new Document(item, "document " + number + " of " + name));
          }
        } else {
          into.add(new Document(doc, "document " + number + " of " + name));
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(option + " " + name + " is not YAML: " + JsonProblem.of(e));
    }
  }

  public static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
