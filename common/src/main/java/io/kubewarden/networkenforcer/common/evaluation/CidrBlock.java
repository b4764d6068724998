package io.kubewarden.networkenforcer.common.evaluation;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A CIDR range such as {@code 10.0.0.0/8} or {@code 2001:db8::/32}. Host bits are masked away as
 * Go's {@code net.ParseCIDR} does. Parsed blocks are cached: the same few policy CIDRs are checked
 * against every flow.
 */
final class CidrBlock {

  private static final int CACHE_LIMIT = 4096;
  private static final CidrBlock INVALID = new CidrBlock(new IpAddress(true, 0, 0), -1);
  private static final ConcurrentHashMap<String, CidrBlock> CACHE = new ConcurrentHashMap<>();

  private final IpAddress network;
  private final int prefix;
  private final long maskHi;
  private final long maskLo;

  private CidrBlock(IpAddress network, int prefix) {
    this.network = network;
    this.prefix = prefix;
    if (network.v4()) {
      maskHi = 0;
      maskLo = prefix <= 0 ? 0 : (0xffffffffL << (32 - prefix)) & 0xffffffffL;
    } else {
      maskHi = prefix <= 0 ? 0 : prefix >= 64 ? -1L : -1L << (64 - prefix);
      maskLo = prefix <= 64 ? 0 : prefix >= 128 ? -1L : -1L << (128 - prefix);
    }
  }

  /** The block {@code text} denotes, or {@code null} when it is not valid CIDR notation. */
  static CidrBlock parse(String text) {
    if (text == null) {
      return null;
    }
    CidrBlock block = CACHE.get(text);
    if (block == null) {
      block = parseUncached(text);
      if (CACHE.size() >= CACHE_LIMIT) {
        CACHE.clear(); // policies changed a lot; rebuilding a few entries is cheap
      }
      CACHE.put(text, block);
    }
    return block == INVALID ? null : block;
  }

  private static CidrBlock parseUncached(String text) {
    int slash = text.indexOf('/');
    if (slash <= 0 || slash == text.length() - 1 || text.length() - slash > 4) {
      return INVALID;
    }
    int prefix = 0;
    for (int i = slash + 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return INVALID;
      }
      prefix = prefix * 10 + (c - '0');
    }
    String addressText = text.substring(0, slash);
    IpAddress address = IpAddress.parse(addressText);
    if (address == null) {
      return INVALID;
    }
    if (address.v4() && addressText.indexOf(':') >= 0) {
      // ::ffff:a.b.c.d/p is an IPv4 block only when the prefix covers the ::ffff part (as in Go).
      if (prefix > 128) {
        return INVALID;
      }
      if (prefix >= 96) {
        prefix -= 96;
      } else {
        address = new IpAddress(false, 0, (0xffffL << 32) | address.lo());
      }
    }
    if (prefix > address.bits()) {
      return INVALID;
    }
    CidrBlock unmasked = new CidrBlock(address, prefix);
    return new CidrBlock(
        new IpAddress(address.v4(), address.hi() & unmasked.maskHi, address.lo() & unmasked.maskLo),
        prefix);
  }

  boolean isIpv4() {
    return network.v4();
  }

  boolean contains(IpAddress address) {
    return address != null
        && address.v4() == network.v4()
        && ((address.hi() ^ network.hi()) & maskHi) == 0
        && ((address.lo() ^ network.lo()) & maskLo) == 0;
  }

  @Override
  public String toString() {
    return network + "/" + prefix;
  }
}
