package io.kubewarden.networkenforcer.processor.learning;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.TreeMap;
import java.util.WeakHashMap;

/**
 * Label selectors of learned state: labels in a sorted map, one shared instance per distinct
 * selector.
 *
 * <p>The stores' JSON orders map entries by key: Jackson copies any other map into a sorted one
 * each time it writes it, and a busy target's whole allow-list (one selector per peer) is written
 * on each of its changes. And every target a workload talks to holds that workload's selector: a
 * cluster of 10,000 workloads learns about 100,000 peers, so one copy per peer filled half of
 * {@code learn}'s heap. Learned selectors are never modified, which is what makes sharing them
 * safe.
 */
final class SortedSelector {
  /** Weak both ways: a selector no learned state holds any more is collected with its entry. */
  private static final Map<LabelSelector, WeakReference<LabelSelector>> SHARED =
      new WeakHashMap<>();

  private SortedSelector() {}

  /**
   * The selector itself when its labels are sorted already (one this class returned), or absent, or
   * it has parts the model does not know; else the shared selector equal to it, with sorted labels.
   */
  static LabelSelector of(LabelSelector selector) {
    if (selector == null
        || selector.getMatchLabels() == null
        || selector.getMatchLabels() instanceof TreeMap
        || selector.getMatchLabels().isEmpty()
        || !selector.getAdditionalProperties().isEmpty()
        || selector.getMatchExpressions() != null && !selector.getMatchExpressions().isEmpty()) {
      return selector;
    }
    synchronized (SHARED) {
      WeakReference<LabelSelector> known = SHARED.get(selector);
      LabelSelector shared = known == null ? null : known.get();
      if (shared == null) {
        TreeMap<String, String> labels = new TreeMap<>();
        selector
            .getMatchLabels()
            .forEach(
                (key, value) -> labels.put(key.intern(), value == null ? null : value.intern()));
        shared = new LabelSelector(selector.getMatchExpressions(), labels);
        SHARED.put(shared, new WeakReference<>(shared));
      }
      return shared;
    }
  }
}
