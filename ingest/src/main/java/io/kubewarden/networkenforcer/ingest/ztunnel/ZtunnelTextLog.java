package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads ztunnel's default plain-text log line (what it prints unless {@code LOG_FORMAT=json}, Helm
 * {@code ztunnel.logAsJson: true}) into the same object its JSON format would give, so one parser
 * serves both:
 *
 * <pre>
 * 2024-05-04T09:59:05.028709Z&lt;TAB&gt;info&lt;TAB&gt;access&lt;TAB&gt;connection complete&lt;TAB&gt;src.addr=10.244.1.12:60059 src.workload="curl-7656cf8794-r7zb9" ... bytes_sent=175
 * 2026-08-03T15:34:57.746680Z&lt;TAB&gt;info&lt;TAB&gt;state:proxy{wl=default/x}:inbound{id=.. peer=10.244.0.5:49084}&lt;TAB&gt;deny policy match&lt;TAB&gt;policy="default/deny-x"
 * </pre>
 *
 * <p>The target becomes {@code scope} (the text format already strips {@code ztunnel::}), each span
 * {@code name{k=v ...}} a nested object, every {@code key=value} field a key (quoted values
 * unescaped, integers as numbers). Copies whose tabs became runs of spaces (documentation, terminal
 * copies) are read too: the message then ends before the first {@code key=} token.
 */
public final class ZtunnelTextLog {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Pattern HEAD =
      Pattern.compile(
          "^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z)\\s+(trace|debug|info|warn|error)\\s+(.*)$",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern FIELD_START = Pattern.compile("^[A-Za-z_][\\w.]*=");
  private static final Pattern INTEGER = Pattern.compile("^-?\\d{1,18}$");
  private static final Set<String> LEVELS = Set.of("trace", "debug", "info", "warn", "error");

  private ZtunnelTextLog() {}

  /** True when the line starts like a ztunnel text log line (time, level). */
  public static boolean looksLikeText(String line) {
    return line != null
        && !line.isEmpty()
        && Character.isDigit(line.charAt(0))
        && HEAD.matcher(line).matches();
  }

  /**
   * The line as ztunnel's JSON format would have written it, or null when it is not a ztunnel text
   * line.
   */
  public static ObjectNode toJson(String line) {
    if (line == null) {
      return null;
    }
    Matcher head = HEAD.matcher(line.strip());
    if (!head.matches()) {
      return null;
    }
    String level = head.group(2).toLowerCase(Locale.ROOT);
    if (!LEVELS.contains(level)) {
      return null;
    }
    String rest = head.group(3);
    int targetEnd = endOfTarget(rest);
    String target = rest.substring(0, targetEnd);
    String body = rest.substring(targetEnd).replaceFirst("^[ \\t]+", "");
    ObjectNode out = NODES.objectNode();
    out.put("level", level);
    out.put("time", head.group(1));
    int spans = startOfSpans(target);
    out.put("scope", spans < 0 ? target : target.substring(0, spans));
    if (spans >= 0) {
      readSpans(target.substring(spans + 1), out);
    }
    String message;
    String fields;
    int tab = body.indexOf('\t');
    if (tab >= 0) {
      message = body.substring(0, tab).strip();
      fields = body.substring(tab + 1);
    } else {
      int fieldsAt = firstFieldToken(body);
      message = (fieldsAt < 0 ? body : body.substring(0, fieldsAt)).strip();
      fields = fieldsAt < 0 ? "" : body.substring(fieldsAt);
    }
    out.put("message", message);
    readFields(fields, out);
    return out;
  }

  /** The target ends at the first whitespace outside span braces. */
  private static int endOfTarget(String rest) {
    int depth = 0;
    boolean quoted = false;
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c == '"' && (i == 0 || rest.charAt(i - 1) != '\\')) {
        quoted = !quoted;
      } else if (!quoted && c == '{') {
        depth++;
      } else if (!quoted && c == '}') {
        depth--;
      } else if (!quoted && depth == 0 && Character.isWhitespace(c)) {
        return i;
      }
    }
    return rest.length();
  }

  /** Where {@code :span{...}} segments begin: a single colon followed by a name and a brace. */
  private static int startOfSpans(String target) {
    Matcher m = Pattern.compile("(?<!:):(?!:)[A-Za-z_][\\w]*\\{").matcher(target);
    return m.find() ? m.start() : -1;
  }

  private static void readSpans(String spans, ObjectNode out) {
    int i = 0;
    while (i < spans.length()) {
      int open = spans.indexOf('{', i);
      if (open < 0) {
        return;
      }
      String name = spans.substring(i, open);
      int depth = 0;
      int close = -1;
      boolean quoted = false;
      for (int j = open; j < spans.length(); j++) {
        char c = spans.charAt(j);
        if (c == '"' && spans.charAt(j - 1) != '\\') {
          quoted = !quoted;
        } else if (!quoted && c == '{') {
          depth++;
        } else if (!quoted && c == '}' && --depth == 0) {
          close = j;
          break;
        }
      }
      if (close < 0) {
        return;
      }
      ObjectNode span = NODES.objectNode();
      readFields(spans.substring(open + 1, close), span);
      out.set(name, span);
      i = close + 1;
      if (i < spans.length() && spans.charAt(i) == ':') {
        i++;
      }
    }
  }

  private static int firstFieldToken(String body) {
    int i = 0;
    while (i < body.length()) {
      while (i < body.length() && Character.isWhitespace(body.charAt(i))) {
        i++;
      }
      if (i < body.length() && FIELD_START.matcher(body.substring(i)).find()) {
        return i;
      }
      while (i < body.length() && !Character.isWhitespace(body.charAt(i))) {
        i++;
      }
    }
    return -1;
  }

  /** {@code k=v k="quoted \"value\"" ...}; tokens without {@code =} are skipped. */
  static void readFields(String text, ObjectNode out) {
    int i = 0;
    int n = text.length();
    while (i < n) {
      while (i < n && Character.isWhitespace(text.charAt(i))) {
        i++;
      }
      int keyStart = i;
      while (i < n && text.charAt(i) != '=' && !Character.isWhitespace(text.charAt(i))) {
        i++;
      }
      if (i >= n || text.charAt(i) != '=') {
        continue;
      }
      String key = text.substring(keyStart, i);
      i++;
      if (i < n && text.charAt(i) == '"') {
        StringBuilder value = new StringBuilder();
        i++;
        while (i < n && text.charAt(i) != '"') {
          char c = text.charAt(i);
          if (c == '\\' && i + 1 < n) {
            char next = text.charAt(++i);
            value.append(
                switch (next) {
                  case 'n' -> '\n';
                  case 't' -> '\t';
                  default -> next;
                });
          } else {
            value.append(c);
          }
          i++;
        }
        i++;
        out.put(key, value.toString());
      } else {
        int valueStart = i;
        while (i < n && !Character.isWhitespace(text.charAt(i))) {
          i++;
        }
        String value = text.substring(valueStart, i);
        if (INTEGER.matcher(value).matches()) {
          out.put(key, Long.parseLong(value));
        } else {
          out.put(key, value);
        }
      }
    }
  }
}
