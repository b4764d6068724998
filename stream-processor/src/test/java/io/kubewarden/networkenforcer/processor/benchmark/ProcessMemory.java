package io.kubewarden.networkenforcer.processor.benchmark;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the benchmark process holds, for the memory figures the benchmarks print. */
final class ProcessMemory {
  private ProcessMemory() {}

  /** Heap used after full collections, and the process's resident set, in bytes. */
  static long[] afterCollections() throws Exception {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    long rss = 0;
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    return new long[] {heap, rss};
  }
}
