package io.kubewarden.networkenforcer.cli.ranges;

import io.kubewarden.networkenforcer.common.evaluation.Addresses;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * What {@link ClusterRangeDiscovery} found, per source, and which sources could not be read.
 *
 * @param found the ranges of each source that was read (possibly none), in source order
 * @param unavailable why a source could not be read ("not served", "forbidden ...")
 */
public record DiscoveredRanges(
    Map<RangeSource, List<String>> found, Map<RangeSource, String> unavailable) {

  public DiscoveredRanges {
    found = found.isEmpty() ? Map.of() : new EnumMap<>(found);
    unavailable = unavailable.isEmpty() ? Map.of() : new EnumMap<>(unavailable);
  }

  /**
   * The ranges learning uses: every configured range, kept as given (configuration wins: a range
   * the cluster does not report, such as node or load-balancer addresses, is still excepted), then
   * each discovered range no earlier range already covers, in source order, halves of one block
   * joined into it ({@link SiblingBlocks}). A covered range adds nothing to an {@code except} but
   * length: one Calico pool covers every node's block.
   */
  public List<String> mergedWith(List<String> configured) {
    List<String> merged = new ArrayList<>(configured);
    List<String> discovered = new ArrayList<>();
    // Each source's blocks joined where two halves make one (every node's block of a range).
    found.values().forEach(ranges -> discovered.addAll(SiblingBlocks.joined(ranges)));
    for (String cidr : discovered) {
      boolean inWiderDiscovered =
          discovered.stream().anyMatch(d -> wider(d, cidr) && coveredBy(cidr, List.of(d)));
      if (!inWiderDiscovered && !coveredBy(cidr, merged)) {
        merged.add(cidr);
      }
    }
    return List.copyOf(merged);
  }

  /** One line for the log: what came from where, and what could not be read. */
  public String describe(List<String> configured) {
    StringJoiner line = new StringJoiner("; ");
    line.add("configured " + (configured.isEmpty() ? "none" : configured));
    found.forEach(
        (source, ranges) ->
            line.add(
                source.describe() + " " + (ranges.isEmpty() ? "none" : String.join(", ", ranges))));
    unavailable.forEach((source, why) -> line.add(source.describe() + " " + why));
    return line.toString();
  }

  /** Whether {@code cidr} lies within one of {@code ranges} (same family, no shorter prefix). */
  static boolean coveredBy(String cidr, List<String> ranges) {
    for (String range : ranges) {
      if (range.equals(cidr)
          || (prefix(range) <= prefix(cidr)
              && Addresses.isIpv4Cidr(range).equals(Addresses.isIpv4Cidr(cidr))
              && Addresses.inAny(network(cidr), List.of(range)))) {
        return true;
      }
    }
    return false;
  }

  private static boolean wider(String a, String b) {
    return prefix(a) < prefix(b);
  }

  private static int prefix(String cidr) {
    return Integer.parseInt(cidr.substring(cidr.indexOf('/') + 1));
  }

  private static String network(String cidr) {
    return cidr.substring(0, cidr.indexOf('/'));
  }
}
