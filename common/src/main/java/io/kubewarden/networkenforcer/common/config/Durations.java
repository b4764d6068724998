package io.kubewarden.networkenforcer.common.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations the way Kubernetes and Helm users write them, Go's {@code time.ParseDuration}
 * syntax: {@code 30s}, {@code 1m30s}, {@code 1.5h}, {@code 500ms}, {@code 250us} (plus {@code d}
 * for days and ISO-8601 {@code PT30S}), and a bare {@code 0}.
 */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h|d)");

  private Durations() {}

  public static Duration parse(String name, String text) {
    if (text == null || text.isBlank()) {
      throw new ConfigException(name + " is empty; write a duration such as 30s, 5m or 1h");
    }
    String t = text.trim();
    // Go's time.ParseDuration takes a bare 0 as well: the value that turns an interval off.
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    if (t.startsWith("P") || t.startsWith("p")) {
      try {
        return Duration.parse(t);
      } catch (RuntimeException e) {
        throw new ConfigException(
            name + " = '" + text + "' is not a duration; write for example 30s, 5m or 1h");
      }
    }
    Matcher m = PART.matcher(t);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find()) {
      if (m.start() != end) {
        break;
      }
      try {
        total = total.plus(part(new BigDecimal(m.group(1)), m.group(2)));
      } catch (ArithmeticException | NumberFormatException e) {
        throw new ConfigException(
            name + " = '" + text + "' is too long a duration; write for example 30s, 5m or 1h");
      }
      end = m.end();
    }
    if (end != t.length() || end == 0) {
      throw new ConfigException(
          name + " = '" + text + "' is not a duration; write for example 30s, 5m or 1h");
    }
    return total;
  }

  /** One number-and-unit part, fractions allowed as in Go ({@code 1.5h}); nanosecond precision. */
  private static Duration part(BigDecimal amount, String unit) {
    long nanosPerUnit =
        switch (unit) {
          case "ns" -> 1L;
          case "us", "µs" -> 1_000L;
          case "ms" -> 1_000_000L;
          case "s" -> 1_000_000_000L;
          case "m" -> 60_000_000_000L;
          case "h" -> 3_600_000_000_000L;
          default -> 86_400_000_000_000L;
        };
    return Duration.ofNanos(
        amount
            .multiply(BigDecimal.valueOf(nanosPerUnit))
            .setScale(0, RoundingMode.DOWN)
            .longValueExact());
  }
}
