package io.kubewarden.networkenforcer.cli.history;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The progress line of a history read: records done of the total, rate and time left, on stderr at
 * most once per interval (and once at the end), so output stays readable in CI logs.
 */
public final class HistoryProgress {
  private final PrintWriter out;
  private final String what;
  private final long intervalNanos;
  private long total;
  private long startNanos;
  private long lastPrintNanos;

  public HistoryProgress(PrintWriter out, String what, long intervalNanos) {
    this.out = out;
    this.what = what;
    this.intervalNanos = intervalNanos;
  }

  /** A progress that prints nothing. */
  public static HistoryProgress silent() {
    return new HistoryProgress(null, "", Long.MAX_VALUE);
  }

  /** Every two seconds to {@code err} (the command's stderr). */
  public static HistoryProgress every2s(PrintWriter err, String what) {
    return new HistoryProgress(err, what, TimeUnit.SECONDS.toNanos(2));
  }

  public void start(long totalRecords) {
    start(totalRecords, System.nanoTime());
  }

  void start(long totalRecords, long nowNanos) {
    total = totalRecords;
    startNanos = nowNanos;
    lastPrintNanos = nowNanos;
  }

  public void update(long done) {
    long now = System.nanoTime();
    if (out != null && now - lastPrintNanos >= intervalNanos) {
      lastPrintNanos = now;
      out.println(line(done, now, false));
      out.flush();
    }
  }

  public void finish(long done) {
    if (out != null) {
      out.println(line(done, System.nanoTime(), true));
      out.flush();
    }
  }

  /** For example {@code reading flows: 12000 of 48000 records (25%), 6000/s, ETA 6 s}. */
  String line(long done, long now, boolean finished) {
    double seconds = Math.max(1e-3, (now - startNanos) / 1e9);
    double rate = done / seconds;
    StringBuilder s =
        new StringBuilder(what)
            .append(": ")
            .append(done)
            .append(" of ")
            .append(total)
            .append(" records");
    if (total > 0) {
      s.append(" (").append(Math.min(100, done * 100 / total)).append("%)");
    }
    s.append(String.format(Locale.ROOT, ", %.0f/s", rate));
    if (finished) {
      s.append(String.format(Locale.ROOT, ", done in %.1f s", seconds));
    } else if (rate > 0 && total > done) {
      s.append(", ETA ").append(Math.round((total - done) / rate)).append(" s");
    }
    return s.toString();
  }
}
