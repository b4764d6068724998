package io.kubewarden.networkenforcer.cli.learn;

/**
 * Turns running out of heap, on whichever thread of {@code learn} it happened, into a message that
 * says what to do: the launcher lets the heap grow to half of the memory, and the allow-lists of
 * 10,000 workloads need about 1 GiB; a larger cluster, a smaller machine or a heap set by hand can
 * still run out.
 */
final class OutOfMemoryAdvice {
  private OutOfMemoryAdvice() {}

  /**
   * The advice when {@code failure} is or wraps an {@link OutOfMemoryError}; otherwise {@code
   * failure}.
   */
  static RuntimeException whenOutOfMemory(RuntimeException failure) {
    OutOfMemoryError oom = outOfMemory(failure);
    return oom == null ? failure : advice(oom);
  }

  static RuntimeException advice(OutOfMemoryError oom) {
    return new IllegalStateException(message(Runtime.getRuntime().maxMemory(), oom), oom);
  }

  static OutOfMemoryError outOfMemory(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryError oom) {
        return oom;
      }
    }
    return null;
  }

  static String message(long maxHeapBytes, OutOfMemoryError oom) {
    long mib = maxHeapBytes / (1024 * 1024);
    long more = Math.max(1024, 2 * mib);
    // An error the JVM throws without a message (some allocation sites) would read "(null)".
    String what = oom.getMessage() == null ? "" : " (" + oom.getMessage() + ")";
    return "learn ran out of memory"
        + what
        + " with "
        + mib
        + " MiB of usable heap: the "
        + "allow-lists of this capture's cluster do not fit (1,000 workloads need a few hundred MiB, 10,000 "
        + "workloads about 1 GiB; the launcher allows up to half of the machine's memory). Run it again with a "
        + "larger heap, on a machine or container with the memory for it, for example: NE_JAVA_OPTS='-Xmx"
        + more
        + "m -XX:+UseParallelGC' network-enforcer learn ...";
  }
}
