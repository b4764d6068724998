package io.kubewarden.networkenforcer.common.evaluation;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes label-selector semantics ({@code matchLabels} AND every {@code matchExpressions}
 * requirement), evaluated without allocating: it runs for every flow.
 *
 * <p>A {@code null} selector selects nothing (as a nil {@code *LabelSelector} in Kubernetes); an
 * empty selector {@code {}} selects everything. A selector Kubernetes would reject (unknown
 * operator, {@code In}/{@code NotIn} without values, missing key) selects nothing rather than
 * throwing, because callers run on the flow hot path.
 */
public final class LabelSelectorMatcher {

  /** Always present on a namespace since Kubernetes 1.21, even when the flow did not carry it. */
  public static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

  private LabelSelectorMatcher() {}

  /** Does {@code selector} select an object carrying {@code labels}? */
  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    return matches(selector, labels, null, null);
  }

  /**
   * Does {@code selector} select the namespace of {@code endpoint}? Same result as {@code
   * matches(selector, endpoint.effectiveNamespaceLabels())} without building that map. An endpoint
   * without a namespace (outside the cluster) is selected by no namespace selector.
   */
  public static boolean matchesNamespace(LabelSelector selector, FlowEndpoint endpoint) {
    String namespace = endpoint.namespace();
    if (namespace == null) {
      return false;
    }
    return matches(selector, endpoint.namespaceLabels(), NAMESPACE_NAME_LABEL, namespace);
  }

  /** Whether the selector is {@code {}}: no labels and no expressions, so it selects everything. */
  public static boolean isEmpty(LabelSelector selector) {
    return selector != null
        && isNullOrEmpty(selector.getMatchLabels())
        && (selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty());
  }

  private static boolean matches(
      LabelSelector selector,
      Map<String, String> labels,
      String implicitKey,
      String implicitValue) {
    if (selector == null) {
      return false;
    }
    Map<String, String> matchLabels = selector.getMatchLabels();
    if (matchLabels != null && !matchLabels.isEmpty()) {
      for (Map.Entry<String, String> wanted : matchLabels.entrySet()) {
        String actual = label(labels, wanted.getKey(), implicitKey, implicitValue);
        if (actual == null || !actual.equals(wanted.getValue())) {
          return false;
        }
      }
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    if (expressions != null) {
      for (int i = 0, n = expressions.size(); i < n; i++) {
        if (!satisfies(expressions.get(i), labels, implicitKey, implicitValue)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean satisfies(
      LabelSelectorRequirement requirement,
      Map<String, String> labels,
      String implicitKey,
      String implicitValue) {
    String key = requirement.getKey();
    String operator = requirement.getOperator();
    if (key == null || operator == null) {
      return false;
    }
    String actual = label(labels, key, implicitKey, implicitValue);
    List<String> values = requirement.getValues();
    switch (operator) {
      case "In":
        return actual != null && values != null && values.contains(actual);
      case "NotIn":
        // Kubernetes: NotIn also matches objects that do not have the key at all.
        return values != null && !values.isEmpty() && (actual == null || !values.contains(actual));
      case "Exists":
        return actual != null;
      case "DoesNotExist":
        return actual == null;
      default:
        return false;
    }
  }

  private static String label(
      Map<String, String> labels, String key, String implicitKey, String implicitValue) {
    if (key == null) {
      return null;
    }
    String value = labels == null ? null : labels.get(key);
    if (value == null && key.equals(implicitKey)) {
      return implicitValue;
    }
    return value;
  }

  private static boolean isNullOrEmpty(Map<String, String> map) {
    return map == null || map.isEmpty();
  }
}
