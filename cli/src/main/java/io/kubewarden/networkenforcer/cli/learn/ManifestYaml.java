package io.kubewarden.networkenforcer.cli.learn;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Block-style YAML of a manifest already converted to maps, lists and scalars (the shape {@code
 * KubernetesSerialization.convertValue(resource, Object.class)} gives), written in one pass. It
 * replaces fabric8's {@code asYaml}, which builds a snakeyaml node graph per file and was most of
 * the end of a {@code learn} run with thousands of proposals.
 *
 * <p>The layout is fabric8's: every string value double-quoted (so a port such as {@code "18080"}
 * or a label value such as {@code "true"} stays a string for any YAML reader, 1.1 or 1.2), keys
 * plain when nothing can misread them, sequences at the indentation of their key. In double-quoted
 * text every character YAML does not allow printed (controls, DEL, C1, the Unicode line separators,
 * BOM) is escaped. Lines are not folded.
 */
final class ManifestYaml {
  private static final int INDENT = 2;

  /** Words a YAML 1.1 reader (kubectl's) takes for booleans or null when plain. */
  private static final Set<String> RESERVED =
      Set.of("y", "yes", "n", "no", "true", "false", "on", "off", "null");

  private ManifestYaml() {}

  /** The document for a top-level mapping. */
  static String of(Map<?, ?> manifest) {
    StringBuilder out = new StringBuilder(1024);
    mapping(out, manifest, 0, false);
    return out.toString();
  }

  private static void mapping(StringBuilder out, Map<?, ?> map, int indent, boolean continuesLine) {
    boolean first = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(first && continuesLine)) {
        indent(out, indent);
      }
      first = false;
      key(out, String.valueOf(e.getKey()));
      out.append(':');
      Object value = e.getValue();
      if (value instanceof Map<?, ?> m && !m.isEmpty()) {
        out.append('\n');
        mapping(out, m, indent + INDENT, false);
      } else if (value instanceof List<?> l && !l.isEmpty()) {
        out.append('\n');
        sequence(out, l, indent);
      } else {
        out.append(' ');
        scalar(out, value);
        out.append('\n');
      }
    }
  }

  private static void sequence(StringBuilder out, List<?> list, int indent) {
    for (Object item : list) {
      indent(out, indent);
      out.append("- ");
      if (item instanceof Map<?, ?> m && !m.isEmpty()) {
        mapping(out, m, indent + INDENT, true);
      } else if (item instanceof List<?> l && !l.isEmpty()) {
        out.setLength(out.length() - 1); // "-" alone, the inner sequence on the lines below
        out.append('\n');
        sequence(out, l, indent + INDENT);
      } else {
        scalar(out, item);
        out.append('\n');
      }
    }
  }

  private static void scalar(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof Map<?, ?>) {
      out.append("{}");
    } else if (value instanceof List<?>) {
      out.append("[]");
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else {
      quoted(out, value.toString());
    }
  }

  private static void key(StringBuilder out, String key) {
    if (plainKey(key)) {
      out.append(key);
    } else {
      quoted(out, key);
    }
  }

  /** Letters first, then letters, digits and {@code _ . / -}, and not a reserved word. */
  static boolean plainKey(String s) {
    if (s.isEmpty() || !Character.isLetter(s.charAt(0)) || s.charAt(0) > 0x7f) {
      return false;
    }
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          c >= 'a' && c <= 'z'
              || c >= 'A' && c <= 'Z'
              || c >= '0' && c <= '9'
              || c == '_'
              || c == '.'
              || c == '/'
              || c == '-';
      if (!ok) {
        return false;
      }
    }
    return !RESERVED.contains(s.toLowerCase(Locale.ROOT));
  }

  static void quoted(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20
              || c >= 0x7f && c <= 0x9f
              || c == 0x2028
              || c == 0x2029
              || c == 0xfeff
              || c >= 0xfffe) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static void indent(StringBuilder out, int indent) {
    for (int i = 0; i < indent; i++) {
      out.append(' ');
    }
  }
}
