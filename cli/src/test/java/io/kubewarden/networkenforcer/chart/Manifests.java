package io.kubewarden.networkenforcer.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.StreamSupport;

/** The objects of one `helm template` output, with lookups the chart tests share. */
public final class Manifests {
  private final List<JsonNode> objects;

  private Manifests(List<JsonNode> objects) {
    this.objects = List.copyOf(objects);
  }

  static Manifests parse(String yaml) {
    List<JsonNode> objects = new ArrayList<>();
    try (MappingIterator<JsonNode> docs = Json.yaml().readerFor(JsonNode.class).readValues(yaml)) {
      while (docs.hasNext()) {
        JsonNode doc = docs.next();
        if (doc != null && doc.isObject() && doc.has("kind")) {
          objects.add(doc);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("helm rendered invalid YAML", e);
    }
    return new Manifests(objects);
  }

  List<JsonNode> all() {
    return objects;
  }

  List<JsonNode> ofKind(String kind) {
    return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
  }

  Optional<JsonNode> find(String kind, String name) {
    return ofKind(kind).stream()
        .filter(o -> name.equals(o.path("metadata").path("name").asText()))
        .findFirst();
  }

  public JsonNode get(String kind, String name) {
    return find(kind, name)
        .orElseThrow(
            () ->
                new AssertionError(
                    "no "
                        + kind
                        + " "
                        + name
                        + " rendered; have "
                        + objects.stream()
                            .map(
                                o ->
                                    o.path("kind").asText()
                                        + "/"
                                        + o.path("metadata").path("name").asText())
                            .toList()));
  }

  /** Every pod template: Deployments, StatefulSets and DaemonSets. */
  List<JsonNode> workloads() {
    return objects.stream()
        .filter(
            o ->
                List.of("Deployment", "StatefulSet", "DaemonSet").contains(o.path("kind").asText()))
        .toList();
  }

  static JsonNode podSpec(JsonNode workload) {
    return workload.path("spec").path("template").path("spec");
  }

  static JsonNode container(JsonNode workload, String name) {
    return elements(podSpec(workload).path("containers")).stream()
        .filter(c -> name.equals(c.path("name").asText()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no container " + name + " in " + workload.path("metadata")));
  }

  /**
   * A container's env: literal values, and `fieldRef:<path>` / `secretKeyRef:<name>/<key>` for
   * references.
   */
  static Map<String, String> env(JsonNode container) {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode var : elements(container.path("env"))) {
      String name = var.path("name").asText();
      if (env.containsKey(name)) {
        throw new AssertionError(
            "env " + name + " set twice in container " + container.path("name").asText());
      }
      JsonNode from = var.path("valueFrom");
      if (from.has("fieldRef")) {
        env.put(name, "fieldRef:" + from.path("fieldRef").path("fieldPath").asText());
      } else if (from.has("secretKeyRef")) {
        env.put(
            name,
            "secretKeyRef:"
                + from.path("secretKeyRef").path("name").asText()
                + "/"
                + from.path("secretKeyRef").path("key").asText());
      } else {
        env.put(name, var.path("value").asText());
      }
    }
    return env;
  }

  /** mountPath by volume name. */
  static Map<String, String> mounts(JsonNode container) {
    Map<String, String> mounts = new LinkedHashMap<>();
    elements(container.path("volumeMounts"))
        .forEach(m -> mounts.put(m.path("name").asText(), m.path("mountPath").asText()));
    return mounts;
  }

  static Optional<JsonNode> volume(JsonNode workload, String name) {
    return elements(podSpec(workload).path("volumes")).stream()
        .filter(v -> name.equals(v.path("name").asText()))
        .findFirst();
  }

  static List<String> texts(JsonNode array) {
    return elements(array).stream().map(JsonNode::asText).toList();
  }

  static List<JsonNode> elements(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false).toList();
  }
}
