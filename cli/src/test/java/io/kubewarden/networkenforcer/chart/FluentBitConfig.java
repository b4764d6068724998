package io.kubewarden.networkenforcer.chart;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A fluent-bit classic-format configuration: `[SECTION]` headers and `Key value` lines. */
record FluentBitConfig(List<Section> sections) {

  record Section(String name, Map<String, List<String>> entries) {
    String single(String key) {
      List<String> values = entries.get(key);
      if (values == null || values.size() != 1) {
        throw new AssertionError("[" + name + "] " + key + " expected once, got " + values);
      }
      return values.get(0);
    }
  }

  static FluentBitConfig parse(String text) {
    List<Section> sections = new ArrayList<>();
    Section current = null;
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("[") && line.endsWith("]")) {
        current = new Section(line.substring(1, line.length() - 1), new LinkedHashMap<>());
        sections.add(current);
        continue;
      }
      if (current == null) {
        throw new AssertionError("fluent-bit line outside a section: " + line);
      }
      String[] keyValue = line.split("\\s+", 2);
      // Keys are case-insensitive for fluent-bit; keep them as written, the tests use the chart's
      // spelling.
      current
          .entries()
          .computeIfAbsent(keyValue[0], k -> new ArrayList<>())
          .add(keyValue.length > 1 ? keyValue[1] : "");
    }
    return new FluentBitConfig(sections);
  }

  List<Section> all(String name) {
    return sections.stream().filter(s -> s.name().equals(name)).toList();
  }

  /** The one section with that name (fails when there are several). */
  Map<String, List<String>> section(String name) {
    List<Section> found = all(name);
    if (found.size() != 1) {
      throw new AssertionError("expected one [" + name + "] section, found " + found.size());
    }
    return found.get(0).entries();
  }

  /** The FILTER section using the named plugin. */
  Section filter(String plugin) {
    return all("FILTER").stream()
        .filter(s -> plugin.equals(s.entries().getOrDefault("Name", List.of("")).get(0)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + plugin + " filter"));
  }
}
