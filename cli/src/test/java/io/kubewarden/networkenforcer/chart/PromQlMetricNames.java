package io.kubewarden.networkenforcer.chart;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression (a dashboard query or an alert rule) reads, found the
 * minimal way: strings, label matchers ({@code {...}}), ranges ({@code [...]}), grouping label
 * lists ({@code by (...)}, {@code on (...)}, ...) and {@code offset} durations are removed; what is
 * left that looks like an identifier and is neither a keyword nor called like a function is a
 * metric name. Enough for the chart's own queries, which are written plainly; not a PromQL parser.
 */
final class PromQlMetricNames {
  private static final Pattern STRING =
      Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
  private static final Pattern BRACES = Pattern.compile("\\{[^{}]*}");
  private static final Pattern BRACKETS = Pattern.compile("\\[[^\\[\\]]*]");
  private static final Pattern LABEL_LISTS =
      Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^()]*\\)");
  private static final Pattern OFFSET = Pattern.compile("\\boffset\\s+-?[0-9a-zA-Z_$]+");

  /** An identifier not inside a number (1e3) nor a Grafana variable ($namespace). */
  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w.$])[a-zA-Z_:][\\w:]*(?=\\s*(\\()?)");

  private static final Set<String> KEYWORDS =
      Set.of(
          "and",
          "or",
          "unless",
          "bool",
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "offset",
          "inf",
          "nan",
          "atan2");

  private PromQlMetricNames() {}

  static Set<String> of(String expr) {
    String rest = STRING.matcher(expr).replaceAll(" ");
    rest = BRACES.matcher(rest).replaceAll(" ");
    rest = BRACKETS.matcher(rest).replaceAll(" ");
    rest = LABEL_LISTS.matcher(rest).replaceAll(" ");
    rest = OFFSET.matcher(rest).replaceAll(" ");
    Set<String> names = new TreeSet<>();
    Matcher m = IDENTIFIER.matcher(rest);
    while (m.find()) {
      boolean called = m.group(1) != null;
      if (!called && !KEYWORDS.contains(m.group().toLowerCase(Locale.ROOT))) {
        names.add(m.group());
      }
    }
    return names;
  }
}
