package io.kubewarden.networkenforcer.cli.ranges;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins two halves of one block into that block, again and again ({@code 10.244.0.0/24} and {@code
 * 10.244.1.0/24} are {@code 10.244.0.0/23}): the addresses covered stay exactly the same, the list
 * gets shorter. Kubernetes gives nodes consecutive blocks of its cluster range, so the blocks of
 * 100 nodes are three ranges instead of 100 entries in every {@code except}.
 */
final class SiblingBlocks {
  private SiblingBlocks() {}

  private record Block(int bits, BigInteger network, int prefix, int order, String text) {
    String key() {
      return bits + "/" + prefix + "/" + network;
    }
  }

  /**
   * The same addresses in as few blocks as halves allow, each where its first part was listed; a
   * block not joined keeps its text. Expects valid CIDR literals.
   */
  static List<String> joined(List<String> cidrs) {
    Map<String, Block> blocks = new HashMap<>();
    for (int i = 0; i < cidrs.size(); i++) {
      Block b = parse(cidrs.get(i), i);
      if (b == null) {
        return cidrs; // an IPv4-mapped IPv6 block or the like: left as given
      }
      blocks.putIfAbsent(b.key(), b);
    }
    for (int prefix = 128; prefix > 0; prefix--) {
      int p = prefix;
      List<Block> level =
          blocks.values().stream()
              .filter(b -> b.prefix() == p)
              .sorted(Comparator.comparing(Block::network))
              .toList();
      for (Block b : level) {
        BigInteger size = BigInteger.ONE.shiftLeft(b.bits() - p);
        if (!blocks.containsKey(b.key()) || b.network().testBit(b.bits() - p)) {
          continue; // already joined, or the upper half
        }
        Block upper = blocks.get(new Block(b.bits(), b.network().add(size), p, 0, "").key());
        if (upper != null) {
          blocks.remove(b.key());
          blocks.remove(upper.key());
          Block parent =
              new Block(b.bits(), b.network(), p - 1, Math.min(b.order(), upper.order()), null);
          blocks.put(parent.key(), parent);
        }
      }
    }
    List<String> out = new ArrayList<>();
    blocks.values().stream()
        .sorted(Comparator.comparingInt(Block::order))
        .forEach(b -> out.add(b.text() != null ? b.text() : text(b)));
    return out;
  }

  private static Block parse(String cidr, int order) {
    int slash = cidr.indexOf('/');
    int prefix = Integer.parseInt(cidr.substring(slash + 1));
    byte[] address;
    try {
      // A literal: no name is looked up.
      address = InetAddress.getByName(cidr.substring(0, slash)).getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not a CIDR literal: " + cidr, e);
    }
    int bits = address.length * 8;
    if (prefix > bits) {
      return null;
    }
    BigInteger network =
        new BigInteger(1, address)
            .shiftRight(bits - prefix)
            .shiftLeft(bits - prefix); // host bits cleared
    return new Block(bits, network, prefix, order, cidr);
  }

  private static String text(Block b) {
    byte[] raw = b.network().toByteArray();
    byte[] address = new byte[b.bits() / 8];
    int copy = Math.min(raw.length, address.length);
    System.arraycopy(raw, raw.length - copy, address, address.length - copy, copy);
    if (b.bits() == 32) {
      return (address[0] & 0xff)
          + "."
          + (address[1] & 0xff)
          + "."
          + (address[2] & 0xff)
          + "."
          + (address[3] & 0xff)
          + "/"
          + b.prefix();
    }
    return v6(address) + "/" + b.prefix();
  }

  /** RFC 5952 text: lower case, the longest run of two or more zero groups as {@code ::}. */
  private static String v6(byte[] a) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        s.append("::");
        i += bestLength - 1;
        continue;
      }
      if (s.length() > 0 && s.charAt(s.length() - 1) != ':') {
        s.append(':');
      }
      s.append(Integer.toHexString(groups[i]));
    }
    return s.toString();
  }
}
