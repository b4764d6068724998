package io.kubewarden.networkenforcer.processor.learning;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.policy.Backend;
import java.time.Instant;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a target has learned so far: the value of the learned allow-lists store.
 *
 * @param ownSelector the target workload's {@code spec.selector} (podSelector / istio selector)
 * @param peers keyed by peer workload {@code ns/Kind/name} (Kubernetes) or principal (Istio), so the
 *     rules come out in a deterministic order
 * @param evidenceDirty evidence changed since the last published snapshot; kept in the store so a
 *     restarted task still flushes it
 */
public record LearnedAllowList(Backend backend, LabelSelector ownSelector, SortedMap<String, LearnedPeer> peers,
    boolean evidenceDirty) {

  public LearnedAllowList {
    peers = peers == null ? new TreeMap<>() : new TreeMap<>(peers);
  }

  public LearnedAllowList withEvidenceDirty(boolean dirty) {
    return new LearnedAllowList(backend, ownSelector, peers, dirty);
  }

  /** The latest flow time in the allow-list: the snapshot's {@code updatedAt}, deterministic. */
  public Instant lastSeen() {
    Instant last = null;
    for (LearnedPeer peer : peers.values()) {
      for (PortStats port : peer.ports().values()) {
        if (last == null || port.lastSeen().isAfter(last)) {
          last = port.lastSeen();
        }
      }
    }
    return last;
  }
}
