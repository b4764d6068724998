package io.kubewarden.networkenforcer.writer.reconcile;

/**
 * What the queue knows of a key's earlier attempts: how many failed in a row before this one (0 on
 * a first attempt or after a success). A reconciler that gives up after a number of failures reads
 * it here instead of counting them itself, so it keeps nothing between calls.
 */
public record RetryInfo(int failuresInARow) {
  private static final RetryInfo FIRST = new RetryInfo(0);

  public RetryInfo {
    if (failuresInARow < 0) {
      throw new IllegalArgumentException("failures in a row must be 0 or more: " + failuresInARow);
    }
  }

  public static RetryInfo first() {
    return FIRST;
  }

  /** Which attempt this is, from 1. */
  public int attempt() {
    return failuresInARow + 1;
  }
}
