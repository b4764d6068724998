package io.kubewarden.networkenforcer.common.evaluation;

/**
 * Istio's string match for {@code principals}: {@code *} = any authenticated peer, {@code *x} =
 * suffix, {@code x*} = prefix, anything else exact. Checked in that order, as Istio does, and
 * without building the principal string: the identity is matched from behind its {@code spiffe://}
 * scheme in place.
 */
final class IstioPrincipalMatcher {

  private static final String SPIFFE_SCHEME = "spiffe://";

  private IstioPrincipalMatcher() {}

  /** Where the principal starts inside the identity, or -1 when the peer is not authenticated. */
  static int principalStart(String identity) {
    if (identity == null || identity.isEmpty()) {
      return -1;
    }
    return identity.startsWith(SPIFFE_SCHEME) ? SPIFFE_SCHEME.length() : 0;
  }

  /** Does {@code pattern} match the principal {@code identity[start..]}? Never for start -1. */
  static boolean matches(String pattern, String identity, int start) {
    if (pattern == null || start < 0) {
      return false;
    }
    int principalLength = identity.length() - start;
    int patternLength = pattern.length();
    if (patternLength == 1 && pattern.charAt(0) == '*') {
      return principalLength > 0;
    }
    if (patternLength > 0 && pattern.charAt(0) == '*') {
      int suffixLength = patternLength - 1;
      return principalLength >= suffixLength
          && identity.regionMatches(identity.length() - suffixLength, pattern, 1, suffixLength);
    }
    if (patternLength > 0 && pattern.charAt(patternLength - 1) == '*') {
      int prefixLength = patternLength - 1;
      return principalLength >= prefixLength
          && identity.regionMatches(start, pattern, 0, prefixLength);
    }
    return principalLength == patternLength
        && identity.regionMatches(start, pattern, 0, patternLength);
  }
}
