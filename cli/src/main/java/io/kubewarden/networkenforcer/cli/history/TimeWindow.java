package io.kubewarden.networkenforcer.cli.history;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.Durations;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * A window of the flows topic, {@code [from, to)} by record timestamp. Times are ISO-8601 ({@code
 * 2026-12-01T08:00:00Z}, an offset is allowed) or a duration before now ({@code 24h}, {@code 2d}).
 */
public record TimeWindow(Instant from, Instant to) {

  public TimeWindow {
    if (!to.isAfter(from)) {
      throw new ConfigException("--to " + to + " must be after --from " + from);
    }
  }

  /** Parses {@code --from}/{@code --to}; a missing {@code --to} means now. */
  public static TimeWindow parse(String from, String to, Instant now) {
    if (from == null || from.isBlank()) {
      throw new ConfigException(
          "--from TIME is required: the start of the window (2026-12-01T08:00:00Z or 24h ago as 24h)");
    }
    Instant start = time("--from", from, now);
    Instant end = to == null || to.isBlank() ? now : time("--to", to, now);
    if (!end.isAfter(start)) {
      throw new ConfigException(
          "the window is empty: --to " + end + " is not after --from " + start);
    }
    return new TimeWindow(start, end);
  }

  static Instant time(String option, String text, Instant now) {
    String t = text.trim();
    if (!t.isEmpty() && Character.isDigit(t.charAt(0)) && t.contains("T")) {
      try {
        return OffsetDateTime.parse(t).toInstant();
      } catch (DateTimeParseException e) {
        throw new ConfigException(
            option
                + " = '"
                + text
                + "' is not a time; write 2026-12-01T08:00:00Z, "
                + "2026-12-01T09:00:00+01:00, or a duration before now such as 24h");
      }
    }
    try {
      return now.minus(Durations.parse(option, t));
    } catch (ConfigException e) {
      throw new ConfigException(
          option
              + " = '"
              + text
              + "' is neither a time (2026-12-01T08:00:00Z) nor a "
              + "duration before now (30m, 24h, 2d)");
    }
  }

  public boolean contains(long timestampMs) {
    return timestampMs >= from.toEpochMilli() && timestampMs < to.toEpochMilli();
  }

  @Override
  public String toString() {
    return from + "/" + to;
  }
}
