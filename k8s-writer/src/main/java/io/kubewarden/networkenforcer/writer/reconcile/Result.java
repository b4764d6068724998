package io.kubewarden.networkenforcer.writer.reconcile;

import java.time.Duration;

/** What a reconcile asks of its queue: nothing more, or another look after a while. */
public record Result(Duration requeueAfter) {
  private static final Result DONE = new Result(null);

  public static Result done() {
    return DONE;
  }

  public static Result requeueAfter(Duration after) {
    return new Result(after);
  }

  public boolean requeue() {
    return requeueAfter != null;
  }
}
