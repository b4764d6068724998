package io.kubewarden.networkenforcer.common.evaluation;

/**
 * An IPv4 or IPv6 address as 128 bits, parsed by hand: {@code InetAddress.getByName} would resolve
 * anything that is not a literal through DNS, which the flow hot path must never do.
 *
 * <p>IPv4 addresses use {@code lo} (low 32 bits) only. An IPv4-mapped IPv6 address ({@code
 * ::ffff:a.b.c.d}) is read as the IPv4 address, as Kubernetes (Go {@code net}) does.
 *
 * @param v4 whether this is an IPv4 address
 * @param hi the high 64 bits (IPv6 only)
 * @param lo the low 64 bits (IPv6) or the 32-bit address (IPv4)
 */
record IpAddress(boolean v4, long hi, long lo) {

  /** The address {@code text} denotes, or {@code null} when it is not an IP literal. */
  static IpAddress parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    if (text.indexOf(':') < 0) {
      long v4 = parseV4(text, 0, text.length());
      return v4 < 0 ? null : new IpAddress(true, 0, v4);
    }
    return parseV6(text);
  }

  int bits() {
    return v4 ? 32 : 128;
  }

  /** Dotted quad in {@code text[from, to)} as an unsigned 32-bit value, or -1. */
  static long parseV4(String text, int from, int to) {
    long address = 0;
    int octets = 0;
    int i = from;
    while (i < to) {
      int start = i;
      int value = 0;
      while (i < to && i - start < 4) {
        char c = text.charAt(i);
        if (c < '0' || c > '9') {
          break;
        }
        value = value * 10 + (c - '0');
        i++;
      }
      int digits = i - start;
      // Leading zeros are rejected (ambiguous octal), like Go's net.ParseIP.
      if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && text.charAt(start) == '0')) {
        return -1;
      }
      address = (address << 8) | value;
      octets++;
      if (i == to) {
        break;
      }
      if (text.charAt(i) != '.' || octets == 4) {
        return -1;
      }
      i++;
      if (i == to) {
        return -1;
      }
    }
    return octets == 4 ? address : -1;
  }

  private static int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  private static IpAddress parseV6(String text) {
    int[] groups = new int[8];
    int count = 0;
    int compressAt = -1;
    int length = text.length();
    int i = 0;
    if (text.startsWith("::")) {
      compressAt = 0;
      i = 2;
    } else if (text.charAt(0) == ':') {
      return null;
    }
    while (i < length) {
      if (count == 8) {
        return null;
      }
      int start = i;
      int value = 0;
      while (i < length && i - start < 5) {
        int digit = hexDigit(text.charAt(i));
        if (digit < 0) {
          break;
        }
        value = (value << 4) | digit;
        i++;
      }
      if (i < length && text.charAt(i) == '.') {
        // Trailing dotted IPv4 part, counts as two groups.
        long v4 = parseV4(text, start, length);
        if (v4 < 0 || count > 6) {
          return null;
        }
        groups[count++] = (int) (v4 >>> 16);
        groups[count++] = (int) (v4 & 0xffff);
        i = length;
        break;
      }
      int digits = i - start;
      if (digits == 0 || digits > 4) {
        return null;
      }
      groups[count++] = value;
      if (i == length) {
        break;
      }
      if (text.charAt(i) != ':') {
        return null;
      }
      i++;
      if (i < length && text.charAt(i) == ':') {
        if (compressAt >= 0) {
          return null;
        }
        compressAt = count;
        i++;
      } else if (i == length) {
        return null;
      }
    }
    if (compressAt >= 0) {
      if (count == 8) {
        return null;
      }
      int tail = count - compressAt;
      System.arraycopy(groups, compressAt, groups, 8 - tail, tail);
      for (int g = compressAt; g < 8 - tail; g++) {
        groups[g] = 0;
      }
    } else if (count != 8) {
      return null;
    }
    long hi = 0;
    long lo = 0;
    for (int g = 0; g < 4; g++) {
      hi = (hi << 16) | groups[g];
      lo = (lo << 16) | groups[g + 4];
    }
    if (hi == 0 && (lo >>> 32) == 0xffffL) {
      return new IpAddress(true, 0, lo & 0xffffffffL);
    }
    return new IpAddress(false, hi, lo);
  }
}
