package io.kubewarden.networkenforcer.common.evaluation;

import java.util.List;
import java.util.Optional;

/**
 * Address facts for code outside the evaluator (learning external peers, validating configured
 * cluster ranges), with the same parsing the evaluator uses: no DNS, IPv4-mapped IPv6 as IPv4.
 */
public final class Addresses {
  private Addresses() {}

  /** Whether {@code cidr} is valid CIDR notation. */
  public static boolean isCidr(String cidr) {
    return CidrBlock.parse(cidr) != null;
  }

  /** Whether the CIDR is an IPv4 block; empty when it is not valid. */
  public static Optional<Boolean> isIpv4Cidr(String cidr) {
    CidrBlock block = CidrBlock.parse(cidr);
    return block == null ? Optional.empty() : Optional.of(block.isIpv4());
  }

  /**
   * The single-address block of an IP literal ({@code a.b.c.d/32} or {@code x::y/128}, in the
   * canonical text of the address as given); empty when {@code ip} is not an IP literal.
   */
  public static Optional<String> hostBlock(String ip) {
    IpAddress address = IpAddress.parse(ip);
    if (address == null) {
      return Optional.empty();
    }
    String text = ip.startsWith("::ffff:") && address.v4() ? ip.substring("::ffff:".length()) : ip;
    return Optional.of(text + "/" + address.bits());
  }

  /** Whether the IP literal lies in one of the blocks (invalid blocks contain nothing). */
  public static boolean inAny(String ip, List<String> cidrs) {
    IpAddress address = IpAddress.parse(ip);
    if (address == null) {
      return false;
    }
    for (String cidr : cidrs) {
      CidrBlock block = CidrBlock.parse(cidr);
      if (block != null && block.contains(address)) {
        return true;
      }
    }
    return false;
  }
}
