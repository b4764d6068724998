package io.kubewarden.networkenforcer.processor.learning;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One learned peer and its ports. Kubernetes: the peer workload's namespace and {@code spec.selector};
 * Istio: only the principal (the map key), namespace and selector stay null.
 *
 * @param ports keyed by {@link LearnedPort#key}, so iteration is in protocol, port order
 * @param inferred the peer workload and selector were inferred from pod names and labels
 */
public record LearnedPeer(String namespace, LabelSelector selector, SortedMap<String, LearnedPort> ports,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean inferred) {

  public LearnedPeer {
    ports = ports == null ? new TreeMap<>() : new TreeMap<>(ports);
  }

  public LearnedPeer(String namespace, LabelSelector selector, SortedMap<String, LearnedPort> ports) {
    this(namespace, selector, ports, false);
  }
}
