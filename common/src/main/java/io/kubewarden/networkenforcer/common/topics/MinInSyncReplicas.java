package io.kubewarden.networkenforcer.common.topics;

/**
 * The {@code min.insync.replicas} of every topic the product creates, from its replication factor:
 * one less than the replication factor, at least 1 and at most 2 (RF 1 and 2: 1; RF 3 and more: 2).
 *
 * <p>Why: producers of ours write with {@code acks=all}, which waits only for the replicas in sync.
 * With the broker default of 1, a record acknowledged while its followers lagged is lost with one
 * broker. With RF - 1 an acknowledged record is on two brokers once RF is 3, and one broker may be
 * down (a rolling restart) while writes go on. It stays below RF so that no single broker's absence
 * stops writes, and at 2 above RF 3, the usual setting, rather than blocking writes while two of
 * five brokers are away.
 */
public final class MinInSyncReplicas {
  private MinInSyncReplicas() {}

  public static int of(int replicationFactor) {
    if (replicationFactor < 1) {
      throw new IllegalArgumentException(
          "replication factor must be at least 1, got " + replicationFactor);
    }
    return Math.max(1, Math.min(2, replicationFactor - 1));
  }
}
