package io.kubewarden.networkenforcer.ingest.resolution;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.json.JsonProblem;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Loads a cluster snapshot for offline resolution: the output of {@code kubectl get
 * ns,deploy,sts,ds,rs,pods -A -o json} (or {@code -o yaml}), a List or several YAML documents.
 *
 * <p>Read one object at a time, each trimmed to what resolution reads as the informers' cache does
 * ({@link TrimmingItemStore#trim}, by converting only those parts: {@link TrimmedConversion}): the
 * file of a large cluster is hundreds of megabytes, mostly managed fields, env and statuses, and
 * read whole it did not fit the heap {@code learn} runs with. Kinds that resolution does not index
 * are skipped without being converted.
 */
public final class ClusterStateFile {
  /**
   * Converts only what resolution reads: whole objects built the deserializers of every Kubernetes
   * type.
   */
  private static final TrimmedConversion TRIMMED = new TrimmedConversion();

  private static final Pattern SOURCE =
      Pattern.compile("\\[Source: [^;]*; (line: \\d+, column: \\d+)]");
  private static final String HOW_TO_WRITE =
      "write it with: kubectl get ns,deploy,sts,ds,rs,pods -A -o json";

  /** apiVersion/kind of every kind {@link ClusterIndex} indexes. */
  private static final Map<String, Class<? extends HasMetadata>> INDEXED =
      Map.of(
          "v1/Namespace", Namespace.class,
          "v1/Pod", Pod.class,
          "apps/v1/ReplicaSet", ReplicaSet.class,
          "apps/v1/Deployment", Deployment.class,
          "apps/v1/StatefulSet", StatefulSet.class,
          "apps/v1/DaemonSet", DaemonSet.class,
          "batch/v1/Job", Job.class,
          "batch/v1/CronJob", CronJob.class);

  private ClusterStateFile() {}

  public static ClusterIndex load(Path path) {
    ClusterIndex index = new ClusterIndex();
    try (InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
        JsonParser parser = parser(in)) {
      int documents = 0;
      for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
        document(index, parser, token);
        documents++;
      }
      if (documents == 0) {
        throw new ConfigException("cluster-state file " + path + " is empty; " + HOW_TO_WRITE);
      }
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      // Jackson names the source of nested locations (a start marker) in words that mean nothing
      // here.
      String why = SOURCE.matcher(JsonProblem.describe(e)).replaceAll("$1");
      throw notAList(
          path,
          why
              + (at == null
                  ? ""
                  : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
    } catch (IOException e) {
      throw new ConfigException("cannot read cluster-state file " + path + ": " + e.getMessage());
    } catch (ConfigException e) {
      throw e;
    } catch (RuntimeException e) {
      throw notAList(path, e.getMessage());
    }
    return index;
  }

  private static ConfigException notAList(Path path, String why) {
    return new ConfigException(
        "cluster-state file "
            + path
            + " is not a Kubernetes List in JSON or YAML ("
            + HOW_TO_WRITE
            + "): "
            + why);
  }

  /** JSON when the file starts (after blanks) with a brace or a bracket, YAML otherwise. */
  private static JsonParser parser(InputStream in) throws IOException {
    int lookahead = 4096;
    in.mark(lookahead);
    int c;
    int read = 0;
    do {
      c = in.read();
      read++;
    } while (read < lookahead
        && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xEF || c == 0xBB
            || c == 0xBF));
    in.reset();
    // The project's mappers: their parsers read trees (readValueAsTree) without further setup.
    return c == '{' || c == '[' ? Json.mapper().createParser(in) : Json.yaml().createParser(in);
  }

  /**
   * One top-level document, its first token read: a List's items one by one, a sequence's elements
   * one by one, or a single object.
   */
  private static void document(ClusterIndex index, JsonParser parser, JsonToken first)
      throws IOException {
    if (first == JsonToken.START_ARRAY) {
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        element(index, parser);
      }
      return;
    }
    if (first != JsonToken.START_OBJECT) {
      if (first == JsonToken.VALUE_NULL) {
        return; // an empty YAML document
      }
      throw new IllegalArgumentException(
          "a document is " + shown(parser.getText()) + ", not an object or a list");
    }
    // Fields other than items are kept until the end: without items, they are the object itself.
    ObjectNode fields = Json.mapper().createObjectNode();
    boolean list = false;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      JsonToken value = parser.nextToken();
      if ("items".equals(name) && value == JsonToken.START_ARRAY) {
        list = true;
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          element(index, parser);
        }
      } else if ("items".equals(name) && value == JsonToken.VALUE_NULL) {
        list = true;
      } else {
        fields.set(name, parser.readValueAsTree());
      }
    }
    if (!list) {
      object(index, fields);
    }
  }

  /** An element of a List or a sequence, its first token read. */
  private static void element(ClusterIndex index, JsonParser parser) throws IOException {
    if (parser.currentToken() == JsonToken.START_OBJECT) {
      object(index, parser.readValueAsTree());
    } else if (parser.currentToken() == JsonToken.START_ARRAY) {
      document(index, parser, JsonToken.START_ARRAY);
    } else if (parser.currentToken() != JsonToken.VALUE_NULL) {
      throw new IllegalArgumentException(
          "an item is " + shown(parser.getText()) + ", not an object");
    }
  }

  private static void object(ClusterIndex index, JsonNode node) {
    String kind = node.path("kind").asText("");
    if (kind.isEmpty()) {
      throw new IllegalArgumentException("an object has no kind" + named(node));
    }
    if (node.has("items")) {
      node.path("items")
          .forEach(item -> object(index, item)); // a List inside a sequence of documents
      return;
    }
    Class<? extends HasMetadata> type =
        INDEXED.get(node.path("apiVersion").asText("") + "/" + kind);
    if (type == null) {
      return; // a kind resolution does not read (Services, ConfigMaps, older API versions)
    }
    if (node instanceof ObjectNode object
        && object.path("metadata") instanceof ObjectNode metadata) {
      metadata.remove("managedFields"); // most of an object's bytes, and never read
    }
    HasMetadata resource;
    try {
      resource = TRIMMED.convert(node, type);
    } catch (IllegalArgumentException e) {
      // convertValue's wrapper of a field that does not read: say which object and which field.
      if (e.getCause() instanceof JsonProcessingException jpe) {
        throw new IllegalArgumentException(
            "the " + kind + named(node) + " is not valid " + JsonProblem.describe(jpe), e);
      }
      throw e;
    }
    if (resource.getMetadata() != null) {
      index.upsert(resource);
    }
  }

  /** A scalar of the file in a one-line message: a YAML scalar may span lines. */
  private static String shown(String text) {
    String line = text == null ? "" : text.strip().replaceAll("\\s+", " ");
    return line.length() <= 60 ? line : line.substring(0, 60) + "...";
  }

  private static String named(JsonNode node) {
    String name = node.path("metadata").path("name").asText("");
    return name.isEmpty() ? "" : " (metadata.name " + name + ")";
  }
}
