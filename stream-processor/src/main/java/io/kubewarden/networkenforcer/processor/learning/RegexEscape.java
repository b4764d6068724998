package io.kubewarden.networkenforcer.processor.learning;

/**
 * Escapes text for Cilium's HTTP path rules (RE2 syntax in Envoy): every character that means
 * something in a regular expression is preceded by a backslash, so the text matches only itself.
 */
final class RegexEscape {
  private static final String SPECIAL = "\\.+*?()|[]{}^$";

  private RegexEscape() {}

  static String literal(String text) {
    StringBuilder out = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (SPECIAL.indexOf(c) >= 0) {
        out.append('\\');
      }
      out.append(c);
    }
    return out.toString();
  }
}
