package io.kubewarden.networkenforcer.processor.config;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.evaluation.Addresses;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How learning treats what lies outside the workloads, and when a proposal counts as converged.
 *
 * @param clusterCidrs the cluster's pod and service ranges: an address in them is never learned as
 *     an outside peer, and the widened outside rule excepts them
 * @param externalPeers how an address outside the cluster is learned
 * @param quietPeriod {@code Converged} needs this long (in flow time) without a new peer or port
 * @param minObservations ... and at least this many observations over the whole proposal
 * @param externalPeersWidenAbove with {@code externalPeers=address}: once more than this many
 *     distinct outside addresses use one port of one target, that port is learned as the one
 *     widened rule ({@code outside-cluster}) instead of one rule per address
 * @param ciliumEntities cilium backend: the widened rule is Cilium's entity {@code world} (every
 *     end outside the cluster, whatever its ranges) instead of {@code 0.0.0.0/0} and {@code ::/0}
 *     except {@code clusterCidrs}
 * @param l7Http cilium backend: an ingress port that HTTP requests reached through Cilium's proxy
 *     is learned with the method and path of each ({@code toPorts[].rules.http}), at most {@link
 *     #MAX_HTTP_RULES_PER_PORT} per port, beyond which the port stays L3/L4 only; off by default
 */
public record LearningSettings(
    List<String> clusterCidrs,
    ExternalPeers externalPeers,
    Duration quietPeriod,
    long minObservations,
    int externalPeersWidenAbove,
    boolean ciliumEntities,
    boolean l7Http) {

  /**
   * A service has a handful of endpoints; more distinct paths on one port are ids in paths or a
   * crawler, which one rule per request would only chase: the port then allows every request.
   */
  public static final int MAX_HTTP_RULES_PER_PORT = 32;

  public static final Duration DEFAULT_QUIET_PERIOD = Duration.ofDays(7);
  public static final long DEFAULT_MIN_OBSERVATIONS = 100;

  /**
   * A reviewer reads ten client addresses of one port as ten named partners (a payment provider's
   * callers, a database's replicas) and keeps them; an eleventh says the port serves whoever comes
   * (an internet-facing service, a CDN or cloud API rotating addresses), which one rule says better
   * than a list that grows with every visitor.
   */
  public static final int DEFAULT_EXTERNAL_PEERS_WIDEN_ABOVE = 10;

  /** The most peers one target learns (the learner's cap): a threshold above it never widens. */
  public static final int MAX_EXTERNAL_PEERS_WIDEN_ABOVE = 10_000;

  public static final LearningSettings DEFAULTS =
      new LearningSettings(null, null, null, DEFAULT_MIN_OBSERVATIONS);

  /** Without L7 HTTP rules. */
  public LearningSettings(
      List<String> clusterCidrs,
      ExternalPeers externalPeers,
      Duration quietPeriod,
      long minObservations,
      int externalPeersWidenAbove,
      boolean ciliumEntities) {
    this(
        clusterCidrs,
        externalPeers,
        quietPeriod,
        minObservations,
        externalPeersWidenAbove,
        ciliumEntities,
        false);
  }

  /** Without Cilium entities. */
  public LearningSettings(
      List<String> clusterCidrs,
      ExternalPeers externalPeers,
      Duration quietPeriod,
      long minObservations,
      int externalPeersWidenAbove) {
    this(clusterCidrs, externalPeers, quietPeriod, minObservations, externalPeersWidenAbove, false);
  }

  /** With the default widening threshold. */
  public LearningSettings(
      List<String> clusterCidrs,
      ExternalPeers externalPeers,
      Duration quietPeriod,
      long minObservations) {
    this(
        clusterCidrs,
        externalPeers,
        quietPeriod,
        minObservations,
        DEFAULT_EXTERNAL_PEERS_WIDEN_ABOVE);
  }

  /** How an address outside the cluster is learned. */
  public enum ExternalPeers {
    /** One ipBlock per observed address ({@code /32} or {@code /128}), per port and protocol. */
    ADDRESS("address"),
    /**
     * One rule per port and protocol allowing every address outside the cluster: {@code 0.0.0.0/0}
     * and {@code ::/0} except the cluster's ranges.
     */
    OUTSIDE_CLUSTER("outside-cluster");

    private final String value;

    ExternalPeers(String value) {
      this.value = value;
    }

    public String value() {
      return value;
    }

    public static ExternalPeers parse(String text) {
      String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
      for (ExternalPeers p : values()) {
        if (p.value.equals(t)) {
          return p;
        }
      }
      throw new ConfigException(
          "external peers must be 'address' or 'outside-cluster', got '" + text + "'");
    }
  }

  public LearningSettings {
    clusterCidrs = clusterCidrs == null ? List.of() : List.copyOf(clusterCidrs);
    externalPeers = externalPeers == null ? ExternalPeers.ADDRESS : externalPeers;
    quietPeriod = quietPeriod == null ? DEFAULT_QUIET_PERIOD : quietPeriod;
  }

  /** The same settings with other cluster ranges (configured and discovered, merged). */
  public LearningSettings withClusterCidrs(List<String> cidrs) {
    return new LearningSettings(
        cidrs,
        externalPeers,
        quietPeriod,
        minObservations,
        externalPeersWidenAbove,
        ciliumEntities,
        l7Http);
  }

  public LearningSettings validate() {
    for (String cidr : clusterCidrs) {
      if (!Addresses.isCidr(cidr)) {
        throw new ConfigException(
            "cluster CIDR '"
                + cidr
                + "' is not CIDR notation (for example 10.244.0.0/16 or "
                + "fd00:10:244::/56)");
      }
    }
    if (quietPeriod.isZero() || quietPeriod.isNegative()) {
      throw new ConfigException("convergence quiet period must be positive, got " + quietPeriod);
    }
    if (externalPeersWidenAbove < 1 || externalPeersWidenAbove > MAX_EXTERNAL_PEERS_WIDEN_ABOVE) {
      throw new ConfigException(
          "external peers widen-above must be between 1 and "
              + MAX_EXTERNAL_PEERS_WIDEN_ABOVE
              + " distinct addresses per port, got "
              + externalPeersWidenAbove);
    }
    if (minObservations < 0) {
      throw new ConfigException(
          "convergence minimum observations must be 0 or more, got " + minObservations);
    }
    return this;
  }
}
