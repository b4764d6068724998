package io.kubewarden.networkenforcer.processor.learning;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.TreeMap;

/**
 * Label selectors of learned state with their labels in a sorted map. The stores' JSON orders map
 * entries by key: Jackson copies every other map into a sorted one each time it writes it, and a busy
 * target's whole allow-list (one selector per peer) is written on each of its changes.
 */
final class SortedSelector {
  private SortedSelector() {}

  /** The selector itself when its labels are sorted already (or absent), else a copy with sorted labels. */
  static LabelSelector of(LabelSelector selector) {
    if (selector == null || selector.getMatchLabels() == null || selector.getMatchLabels() instanceof TreeMap
        || selector.getMatchLabels().isEmpty() || !selector.getAdditionalProperties().isEmpty()) {
      return selector;
    }
    return new LabelSelector(selector.getMatchExpressions(), new TreeMap<>(selector.getMatchLabels()));
  }
}
