package io.kubewarden.networkenforcer.common.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations the way Kubernetes and Helm users write them: {@code 30s}, {@code 5m}, {@code 1h30m}. */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private Durations() {}

  public static Duration parse(String name, String text) {
    if (text == null || text.isBlank()) {
      throw new ConfigException(name + " is empty; write a duration such as 30s, 5m or 1h");
    }
    String t = text.trim();
    if (t.startsWith("P") || t.startsWith("p")) {
      try {
        return Duration.parse(t);
      } catch (RuntimeException e) {
        throw new ConfigException(name + " = '" + text + "' is not a duration; write for example 30s, 5m or 1h");
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
        long n = Long.parseLong(m.group(1));
        total = total.plus(switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        });
      } catch (ArithmeticException | NumberFormatException e) {
        throw new ConfigException(name + " = '" + text + "' is too long a duration; write for example 30s, 5m or 1h");
      }
      end = m.end();
    }
    if (end != t.length() || end == 0) {
      throw new ConfigException(name + " = '" + text + "' is not a duration; write for example 30s, 5m or 1h");
    }
    return total;
  }
}
