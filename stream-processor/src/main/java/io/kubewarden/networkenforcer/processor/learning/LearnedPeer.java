package io.kubewarden.networkenforcer.processor.learning;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One learned peer and its ports. Kubernetes: the peer workload's namespace and {@code spec.selector},
 * or for a peer outside the cluster its ipBlocks (namespace and selector null) and the DNS names
 * the data plane reported for it (evidence only); Istio: only the principal (the map key).
 *
 * @param ports keyed by {@link LearnedPort#key}, so iteration is in protocol, port order
 * @param inferred the peer workload and selector were inferred from pod names and labels
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record LearnedPeer(String namespace, LabelSelector selector, SortedMap<String, LearnedPort> ports,
    List<LearnedIpBlock> ipBlocks, SortedSet<String> dnsNames,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean inferred) {

  public LearnedPeer {
    selector = SortedSelector.of(selector);
    // One copy per namespace name, not one per learned peer.
    namespace = namespace == null ? null : namespace.intern();
    ports = ports == null ? new TreeMap<>() : new TreeMap<>(ports);
    ipBlocks = ipBlocks == null ? List.of() : List.copyOf(ipBlocks);
    // Most peers are workloads, without names: one shared empty set instead of 100,000 empty ones.
    dnsNames = dnsNames == null || dnsNames.isEmpty() ? Collections.emptySortedSet() : new TreeSet<>(dnsNames);
  }

  /** A peer workload (or an Istio principal, with namespace and selector null). */
  public LearnedPeer(String namespace, LabelSelector selector, SortedMap<String, LearnedPort> ports) {
    this(namespace, selector, ports, null, null, false);
  }

  /** A peer workload that may have been inferred. */
  public LearnedPeer(String namespace, LabelSelector selector, SortedMap<String, LearnedPort> ports,
      boolean inferred) {
    this(namespace, selector, ports, null, null, inferred);
  }

  /** A peer outside the cluster: its ipBlocks and the DNS names reported for it. */
  public LearnedPeer(String namespace, LabelSelector selector, SortedMap<String, LearnedPort> ports,
      List<LearnedIpBlock> ipBlocks, SortedSet<String> dnsNames) {
    this(namespace, selector, ports, ipBlocks, dnsNames, false);
  }

  /** Whether this peer lies outside the cluster (rendered as ipBlocks). */
  public boolean outsideCluster() {
    return !ipBlocks.isEmpty();
  }
}
