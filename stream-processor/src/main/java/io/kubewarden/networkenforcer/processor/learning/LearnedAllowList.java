package io.kubewarden.networkenforcer.processor.learning;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.policy.Backend;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a target has learned so far, without the evidence (kept per port in the evidence store):
 * the value of the learned allow-lists store. It changes only when the allow-list does, or when
 * evidence turns dirty or is flushed.
 *
 * @param ownSelector the target workload's {@code spec.selector} (podSelector / istio selector)
 * @param peers keyed by peer workload {@code ns/Kind/name} (Kubernetes) or principal (Istio), so the
 *     rules come out in a deterministic order
 * @param evidenceDirty evidence changed since the last published snapshot; kept in the store so a
 *     restarted task still flushes it
 * @param ownInferred the target's own workload and selector were inferred from pod names and labels
 */
public record LearnedAllowList(Backend backend, LabelSelector ownSelector, SortedMap<String, LearnedPeer> peers,
    boolean evidenceDirty, @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean ownInferred) {

  public LearnedAllowList {
    peers = peers == null ? new TreeMap<>() : new TreeMap<>(peers);
  }

  public LearnedAllowList(Backend backend, LabelSelector ownSelector, SortedMap<String, LearnedPeer> peers,
      boolean evidenceDirty) {
    this(backend, ownSelector, peers, evidenceDirty, false);
  }

  public LearnedAllowList withEvidenceDirty(boolean dirty) {
    return new LearnedAllowList(backend, ownSelector, peers, dirty, ownInferred);
  }
}
