package io.kubewarden.networkenforcer.processor.learning;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.policy.Backend;
import java.time.Instant;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a target has learned so far, without the evidence (kept per port in the evidence store): the
 * value of the learned allow-lists store. It changes only when the allow-list does, or when
 * evidence turns dirty or is flushed, or when its convergence flips.
 *
 * @param ownSelector the target workload's {@code spec.selector} (podSelector / istio selector)
 * @param peers keyed by peer workload {@code ns/Kind/name} (Kubernetes), the ipBlock key of a peer
 *     outside the cluster, or principal (Istio), so the rules come out in a deterministic order
 * @param evidenceDirty evidence changed since the last published snapshot; kept in the store so a
 *     restarted task still flushes it
 * @param lastChange flow time of the flow that brought the latest new peer or port; never earlier
 *     than the latest first-seen of the evidence (which decides convergence), so the convergence
 *     sweep can skip targets by it; null in state written before convergence existed
 * @param converged whether the last published snapshot said {@code Converged=True}
 * @param ownInferred the target's own workload and selector were inferred from pod names and labels
 */
public record LearnedAllowList(
    Backend backend,
    LabelSelector ownSelector,
    @JsonSerialize(using = LearnedPeers.class) SortedMap<String, LearnedPeer> peers,
    boolean evidenceDirty,
    Instant lastChange,
    boolean converged,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean ownInferred) {

  /**
   * A {@link TreeMap} of peers is taken over, not copied: {@link AllowListLearner} adds a new peer
   * to the map of the allow-list it was given and passes that map on. A busy target (the cluster
   * DNS of a cluster of 10,000 workloads has as many peers) would otherwise copy every peer for
   * each new one.
   */
  public LearnedAllowList {
    ownSelector = SortedSelector.of(ownSelector);
    peers =
        peers == null
            ? new TreeMap<>()
            : peers instanceof TreeMap<String, LearnedPeer> owned ? owned : new TreeMap<>(peers);
  }

  public LearnedAllowList(
      Backend backend,
      LabelSelector ownSelector,
      SortedMap<String, LearnedPeer> peers,
      boolean evidenceDirty) {
    this(backend, ownSelector, peers, evidenceDirty, null, false, false);
  }

  public LearnedAllowList(
      Backend backend,
      LabelSelector ownSelector,
      SortedMap<String, LearnedPeer> peers,
      boolean evidenceDirty,
      Instant lastChange,
      boolean converged) {
    this(backend, ownSelector, peers, evidenceDirty, lastChange, converged, false);
  }

  public LearnedAllowList withEvidenceDirty(boolean dirty) {
    return new LearnedAllowList(
        backend, ownSelector, peers, dirty, lastChange, converged, ownInferred);
  }

  public LearnedAllowList withConverged(boolean value) {
    return new LearnedAllowList(
        backend, ownSelector, peers, evidenceDirty, lastChange, value, ownInferred);
  }
}
