package io.kubewarden.networkenforcer.common.flow;

/**
 * Sums of counts that come from records: a producer may write any {@code long} (a Goldmane
 * aggregate, a forged record), and a plain sum of two large ones wraps to a negative count that
 * ends up in a policy's status. Counts are never negative, so a sum stops at {@link
 * Long#MAX_VALUE}.
 */
public final class Counts {
  private Counts() {}

  /** {@code a + b} for non-negative counts, {@link Long#MAX_VALUE} when it does not fit. */
  public static long sum(long a, long b) {
    long s = a + b;
    return ((a ^ s) & (b ^ s)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : s;
  }
}
