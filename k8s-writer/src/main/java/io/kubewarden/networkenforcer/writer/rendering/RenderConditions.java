package io.kubewarden.networkenforcer.writer.rendering;

import io.fabric8.kubernetes.api.model.Condition;
import io.kubewarden.networkenforcer.writer.conditions.Conditions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The latest rendering outcome per policy ({@code ns/name}). Rendering only records it; the status
 * sync writes it with the rest of the status, so one component owns the status subresource.
 */
public final class RenderConditions {
  private final Map<String, Condition> byPolicy = new ConcurrentHashMap<>();

  public void set(String policyKey, boolean ok, String type, String reason, String message) {
    byPolicy.put(policyKey, Conditions.of(type, ok, reason, message));
  }

  public List<Condition> of(String policyKey) {
    Condition c = byPolicy.get(policyKey);
    return c == null ? List.of() : List.of(c);
  }

  public void forget(String policyKey) {
    byPolicy.remove(policyKey);
  }
}
