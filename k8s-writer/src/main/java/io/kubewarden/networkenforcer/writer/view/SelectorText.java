package io.kubewarden.networkenforcer.writer.view;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** A label selector as a node name: its match labels, sorted, as {@code {k=v,...}}. */
final class SelectorText {
  private SelectorText() {}

  static String of(LabelSelector s) {
    Map<String, String> m =
        s == null || s.getMatchLabels() == null ? Map.of() : new TreeMap<>(s.getMatchLabels());
    return m.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(",", "{", "}"));
  }
}
