package io.kubewarden.networkenforcer.common.evaluation;

/**
 * Matches a destination port against an Istio {@code to.operation.ports} entry: a number, or (ours)
 * a range {@code a-b}. Parsed in place, no allocation; an unreadable entry matches nothing.
 */
final class IstioPortMatcher {
  private IstioPortMatcher() {}

  /**
   * YES/NO for a known port, UNKNOWN for port 0 against a readable entry, NO for an unreadable one.
   */
  static Match matches(String entry, int port) {
    if (entry == null) {
      return Match.NO;
    }
    int length = entry.length();
    int dash = entry.indexOf('-');
    int first = parse(entry, 0, dash < 0 ? length : dash);
    int last = dash < 0 ? first : parse(entry, dash + 1, length);
    if (first < 0 || last < 0) {
      return Match.NO;
    }
    if (port <= 0) {
      return Match.UNKNOWN;
    }
    return Match.of(port >= first && port <= last);
  }

  private static int parse(String text, int from, int to) {
    // Surrounding blanks are tolerated ("80 - 90"); anything else non-numeric is not.
    while (from < to && text.charAt(from) == ' ') {
      from++;
    }
    while (to > from && text.charAt(to - 1) == ' ') {
      to--;
    }
    if (from == to || to - from > 5) {
      return -1;
    }
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value > 65535 ? -1 : value;
  }
}
