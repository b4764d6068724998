package io.kubewarden.networkenforcer.cli.learn;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * How long each phase of a {@code learn} run took, printed with {@code --timings}: where a slow run
 * spends its time (the JVM's start, the cluster state, reading the capture, learning, the
 * manifests), without a profiler. Phases end in order on the command's thread.
 */
final class LearnPhases {
  private record Phase(String name, long nanos) {}

  private final List<Phase> phases = new ArrayList<>();
  private final long createdMillis = System.currentTimeMillis();
  private long last = System.nanoTime();

  /** Ends the phase running since the last one ended. */
  synchronized void done(String name) {
    long now = System.nanoTime();
    phases.add(new Phase(name, now - last));
    last = now;
  }

  /**
   * One line per phase, {@code timing <phase>: <seconds> s}, and the total. The first phase is the
   * JVM's start up to the command (its management bean is asked only here, so a run without timings
   * does not load it).
   */
  synchronized void print(PrintWriter out) {
    List<Phase> all = new ArrayList<>();
    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    all.add(
        new Phase(
            "JVM start", TimeUnit.MILLISECONDS.toNanos(Math.max(0, createdMillis - jvmStart))));
    all.addAll(phases);
    long total = 0;
    for (Phase phase : all) {
      out.printf(Locale.ROOT, "timing %s: %.2f s%n", phase.name(), phase.nanos() / 1e9);
      total += phase.nanos();
    }
    out.printf(Locale.ROOT, "timing total: %.2f s%n", total / 1e9);
    out.flush();
  }
}
