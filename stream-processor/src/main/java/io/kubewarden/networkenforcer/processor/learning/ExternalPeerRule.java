package io.kubewarden.networkenforcer.processor.learning;

import io.kubewarden.networkenforcer.common.evaluation.Addresses;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.LearningSettings.ExternalPeers;
import java.util.ArrayList;
import java.util.List;

/**
 * Which peer an address outside the cluster is learned as. With {@code address}: its own block
 * ({@code /32}, {@code /128}), keyed by that block. With {@code outside-cluster}, or when the data
 * plane reports no address (Calico networks): one peer {@value #OUTSIDE_KEY} allowing {@code
 * 0.0.0.0/0} and {@code ::/0} except the configured cluster ranges, so the call is kept whatever
 * address it goes to next. An address inside a cluster range is never learned: it is a pod, service
 * or node address the data plane could not attribute.
 *
 * <p>Per-address peers are widened per port by {@link AllowListLearner} once more than {@link
 * #widenAbove()} addresses use one port of one target: that port moves to the {@value #OUTSIDE_KEY}
 * peer.
 */
public final class ExternalPeerRule {
  /** The peer key of the widened rule. */
  public static final String OUTSIDE_KEY = "outside-cluster";

  /**
   * The cilium backend's peers by DNS name: {@code dns:} and the names, comma-separated, sorted
   * (see {@link AllowListLearner}).
   */
  public static final String NAMES_PREFIX = "dns:";

  /** The peer to learn, or why there is none. */
  public record Peer(String key, List<LearnedIpBlock> ipBlocks, String skipReason) {}

  private final LearningSettings settings;
  private final List<LearnedIpBlock> outside;

  public ExternalPeerRule(LearningSettings settings) {
    this.settings = settings;
    List<String> v4 = new ArrayList<>();
    List<String> v6 = new ArrayList<>();
    for (String cidr : settings.clusterCidrs()) {
      (Addresses.isIpv4Cidr(cidr).orElse(true) ? v4 : v6).add(cidr);
    }
    this.outside = List.of(new LearnedIpBlock("0.0.0.0/0", v4), new LearnedIpBlock("::/0", v6));
  }

  /** The widened peer: every address outside the cluster ranges. */
  public Peer widened() {
    return new Peer(OUTSIDE_KEY, outside, null);
  }

  /** How many distinct addresses one port of one target keeps before it is widened. */
  public int widenAbove() {
    return settings.externalPeersWidenAbove();
  }

  public Peer peerFor(FlowEndpoint external) {
    String ip = external.ip();
    if (ip != null && Addresses.inAny(ip, settings.clusterCidrs())) {
      return new Peer(null, null, "external-address-in-cluster-range");
    }
    if (settings.externalPeers() == ExternalPeers.OUTSIDE_CLUSTER || ip == null) {
      return widened();
    }
    return Addresses.hostBlock(ip)
        .map(block -> new Peer(block, List.of(new LearnedIpBlock(block, List.of())), null))
        .orElseGet(() -> new Peer(null, null, "external-address-unreadable"));
  }
}
