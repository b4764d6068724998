package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The progress line of a long run: how much of the capture is read and how many flows have gone to
 * the processor. Printed at most every {@code everyNanos}; short runs print nothing.
 */
final class LearnProgress {
  private final PrintStream out;
  private final long everyNanos;
  private final long started = System.nanoTime();
  private final AtomicLong bytesRead = new AtomicLong();
  private final AtomicLong published = new AtomicLong();
  private long totalBytes;
  private long lastPrint = System.nanoTime();
  private boolean printed;
  private final LearnPhases phases = new LearnPhases();

  LearnProgress(PrintStream out, long everyNanos) {
    this.out = out;
    this.everyNanos = everyNanos;
  }

  InputStream track(InputStream in, long size) {
    totalBytes = size;
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          advance(1);
        }
        return b;
      }

      @Override
      public int read(byte[] buf, int off, int len) throws IOException {
        int n = super.read(buf, off, len);
        if (n > 0) {
          advance(n);
        }
        return n;
      }
    };
  }

  FlowSink countingSink(FlowSink sink) {
    return record -> {
      sink.accept(record);
      published.incrementAndGet();
    };
  }

  private void advance(int n) {
    bytesRead.addAndGet(n);
    if (due()) {
      print(
          String.format(
              Locale.ROOT,
              "reading capture: %d%% (%s of %s), %d flows published",
              totalBytes == 0 ? 100 : bytesRead.get() * 100 / totalBytes,
              size(bytesRead.get()),
              size(totalBytes),
              published.get()));
    }
  }

  /** Ends a phase of the run (see {@link LearnPhases}). */
  void phaseDone(String name) {
    phases.done(name);
  }

  LearnPhases phases() {
    return phases;
  }

  void readDone() {
    if (printed) {
      print(
          String.format(Locale.ROOT, "reading capture: done, %d flows published", published.get()));
    }
  }

  private synchronized boolean due() {
    long now = System.nanoTime();
    if (now - lastPrint < everyNanos || now - started < everyNanos) {
      return false;
    }
    lastPrint = now;
    return true;
  }

  private synchronized void print(String line) {
    printed = true;
    out.println(line);
    out.flush();
  }

  private static String size(long bytes) {
    if (bytes < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
  }
}
