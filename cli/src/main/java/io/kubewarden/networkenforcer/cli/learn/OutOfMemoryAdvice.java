package io.kubewarden.networkenforcer.cli.learn;

/**
 * Turns running out of heap, on whichever thread of {@code learn} it happened, into a message that
 * says what to do: the launcher's heap suits clusters of a few thousand workloads; the allow-lists
 * of a larger cluster need a larger one.
 */
final class OutOfMemoryAdvice {
  private OutOfMemoryAdvice() {}

  /** The advice when {@code failure} is or wraps an {@link OutOfMemoryError}; otherwise {@code failure}. */
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
    return "learn ran out of memory" + what + " with " + mib + " MiB of usable heap: the "
        + "allow-lists of this capture's cluster do not fit (the launcher's 512 MiB holds those of 1,000 "
        + "workloads with room to spare; 10,000 workloads need about 1 GiB). Run it again with a larger heap, "
        + "for example: NE_JAVA_OPTS='-Xmx" + more + "m -XX:+UseParallelGC' network-enforcer learn ...";
  }
}
