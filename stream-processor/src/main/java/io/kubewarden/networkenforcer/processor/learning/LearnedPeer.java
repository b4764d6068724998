package io.kubewarden.networkenforcer.processor.learning;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.SerializedString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One learned peer and its ports. Kubernetes: the peer workload's namespace and {@code
 * spec.selector}, or for a peer outside the cluster its ipBlocks (namespace and selector null) and
 * the DNS names the data plane reported for it (evidence only); Istio: only the principal (the map
 * key).
 *
 * <p>A value: never modified once made (the learner replaces a peer that gains a port). That is
 * what lets it keep its own stored JSON once a busy target's allow-list has written it (see {@link
 * LearnedPeers}). It is a class, not a record, only to hold that copy outside equality.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"namespace", "selector", "ports", "ipBlocks", "dnsNames", "inferred"})
public final class LearnedPeer {
  private final String namespace;
  private final LabelSelector selector;
  private final SortedMap<String, LearnedPort> ports;
  private final List<LearnedIpBlock> ipBlocks;
  private final SortedSet<String> dnsNames;
  private final boolean inferred;

  /** This peer's JSON as the stores write it; kept the first time a large allow-list writes it. */
  private volatile KeptJson kept;

  /**
   * @param ports keyed by {@link LearnedPort#key}, so iteration is in protocol, port order
   * @param inferred the peer workload and selector were inferred from pod names and labels
   */
  @JsonCreator
  public LearnedPeer(
      @JsonProperty("namespace") String namespace,
      @JsonProperty("selector") LabelSelector selector,
      @JsonProperty("ports") SortedMap<String, LearnedPort> ports,
      @JsonProperty("ipBlocks") List<LearnedIpBlock> ipBlocks,
      @JsonProperty("dnsNames") SortedSet<String> dnsNames,
      @JsonProperty("inferred") boolean inferred) {
    this.selector = SortedSelector.of(selector);
    // One copy per namespace name, not one per learned peer.
    this.namespace = namespace == null ? null : namespace.intern();
    this.ports = ports == null ? new TreeMap<>() : new TreeMap<>(ports);
    this.ipBlocks = ipBlocks == null ? List.of() : List.copyOf(ipBlocks);
    // Most peers are workloads, without names: one shared empty set instead of 100,000 empty ones.
    this.dnsNames =
        dnsNames == null || dnsNames.isEmpty()
            ? Collections.emptySortedSet()
            : new TreeSet<>(dnsNames);
    this.inferred = inferred;
  }

  /** A peer workload (or an Istio principal, with namespace and selector null). */
  public LearnedPeer(
      String namespace, LabelSelector selector, SortedMap<String, LearnedPort> ports) {
    this(namespace, selector, ports, null, null, false);
  }

  /** A peer workload that may have been inferred. */
  public LearnedPeer(
      String namespace,
      LabelSelector selector,
      SortedMap<String, LearnedPort> ports,
      boolean inferred) {
    this(namespace, selector, ports, null, null, inferred);
  }

  /** A peer outside the cluster: its ipBlocks and the DNS names reported for it. */
  public LearnedPeer(
      String namespace,
      LabelSelector selector,
      SortedMap<String, LearnedPort> ports,
      List<LearnedIpBlock> ipBlocks,
      SortedSet<String> dnsNames) {
    this(namespace, selector, ports, ipBlocks, dnsNames, false);
  }

  @JsonProperty("namespace")
  public String namespace() {
    return namespace;
  }

  @JsonProperty("selector")
  public LabelSelector selector() {
    return selector;
  }

  /**
   * Not to be modified (no wrapper: it is read for every flow): a peer that gains a port is
   * replaced.
   */
  @JsonProperty("ports")
  public SortedMap<String, LearnedPort> ports() {
    return ports;
  }

  @JsonProperty("ipBlocks")
  public List<LearnedIpBlock> ipBlocks() {
    return ipBlocks;
  }

  @JsonProperty("dnsNames")
  public SortedSet<String> dnsNames() {
    return dnsNames;
  }

  @JsonProperty("inferred")
  @JsonInclude(JsonInclude.Include.NON_DEFAULT)
  public boolean inferred() {
    return inferred;
  }

  /** Whether this peer lies outside the cluster (rendered as ipBlocks). */
  public boolean outsideCluster() {
    return !ipBlocks.isEmpty();
  }

  /**
   * This peer's JSON as {@link Json#mapper()} writes it, and its map key ready to write (a peer is
   * held under one key); made the first time they are asked for.
   */
  KeptJson keptJson(String key) {
    KeptJson known = kept;
    if (known == null || !known.key().equals(key)) {
      SerializedString json = known != null ? known.json() : null;
      if (json == null) {
        try {
          // Jackson's own holder of pre-written text: it keeps the UTF-8 bytes from the first write
          // on.
          json = new SerializedString(Json.mapper().writeValueAsString(this));
        } catch (JsonProcessingException e) {
          throw new UncheckedIOException(e);
        }
      }
      known = new KeptJson(key, new SerializedString(key), json);
      kept = known;
    }
    return known;
  }

  /** A peer's map key, that key escaped for JSON, and the peer's JSON. */
  record KeptJson(String key, SerializedString name, SerializedString json) {}

  /** Whether a write kept this peer's JSON (for tests). */
  boolean keepsJson() {
    return kept != null;
  }

  @Override
  public boolean equals(Object o) {
    return o == this
        || o instanceof LearnedPeer p
            && inferred == p.inferred
            && Objects.equals(namespace, p.namespace)
            && Objects.equals(selector, p.selector)
            && ports.equals(p.ports)
            && ipBlocks.equals(p.ipBlocks)
            && dnsNames.equals(p.dnsNames);
  }

  @Override
  public int hashCode() {
    return Objects.hash(namespace, selector, ports, ipBlocks, dnsNames, inferred);
  }

  @Override
  public String toString() {
    return "LearnedPeer[namespace="
        + namespace
        + ", selector="
        + selector
        + ", ports="
        + ports
        + ", ipBlocks="
        + ipBlocks
        + ", dnsNames="
        + dnsNames
        + ", inferred="
        + inferred
        + "]";
  }
}
