package io.kubewarden.networkenforcer.writer.apply;

/** A write was attempted after this replica lost the lease; nothing was written. */
public class NotLeaderException extends IllegalStateException {
  public NotLeaderException(String operation) {
    super("not the leader any more: refused to " + operation);
  }
}
