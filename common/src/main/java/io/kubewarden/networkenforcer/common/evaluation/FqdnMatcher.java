package io.kubewarden.networkenforcer.common.evaluation;

import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.FqdnSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Cilium's DNS name selectors ({@code toFQDNs}, {@code rules.dns}), as its CRD documents them.
 * Names compare case-insensitively and a trailing dot is implied. {@code matchName} is the literal
 * name. {@code matchPattern}: {@code *} alone matches every name; {@code *} elsewhere matches zero
 * or more DNS characters within one label ({@code *.example.com} matches {@code api.example.com},
 * not {@code example.com} nor {@code a.b.example.com}; {@code *example.com} matches {@code
 * example.com} and {@code myexample.com}, not {@code www.example.com}); a leading {@code **.}
 * matches one or more labels ({@code **.example.com} matches {@code a.b.example.com}, not {@code
 * example.com}).
 */
public final class FqdnMatcher {
  /** One DNS label's characters, as Cilium allows them in a pattern. */
  private static final String LABEL_CHARS = "[-a-z0-9_]";

  private static final int MAX_CACHED = 4096;

  /** Compiled patterns: a policy's few patterns are evaluated for every external flow. */
  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  private FqdnMatcher() {}

  /** Whether any of {@code names} (a flow's DNS names) is selected by any of {@code selectors}. */
  public static boolean anyMatches(List<FqdnSelector> selectors, List<String> names) {
    if (selectors == null || names == null || names.isEmpty()) {
      return false;
    }
    // Each name normalized once, not once per selector: this runs for every external flow.
    List<String> fqdns = new ArrayList<>(names.size());
    for (String name : names) {
      if (name != null && !name.isEmpty()) {
        fqdns.add(normalize(name));
      }
    }
    for (FqdnSelector selector : selectors) {
      for (String fqdn : fqdns) {
        if (matchesNormalized(selector, fqdn)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether {@code name} is selected by {@code selector}; an empty selector selects nothing. */
  public static boolean matches(FqdnSelector selector, String name) {
    if (name == null || name.isEmpty()) {
      return false;
    }
    return matchesNormalized(selector, normalize(name));
  }

  private static boolean matchesNormalized(FqdnSelector selector, String fqdn) {
    if (selector == null) {
      return false;
    }
    if (selector.getMatchName() != null) {
      return fqdn.equals(normalize(selector.getMatchName()));
    }
    if (selector.getMatchPattern() != null) {
      return pattern(selector.getMatchPattern()).matcher(fqdn).matches();
    }
    return false;
  }

  /** Lower case with one trailing dot. */
  static String normalize(String name) {
    String lower = name.trim().toLowerCase(Locale.ROOT);
    return lower.endsWith(".") ? lower : lower + ".";
  }

  static Pattern pattern(String matchPattern) {
    Pattern known = PATTERNS.get(matchPattern);
    if (known != null) {
      return known;
    }
    Pattern compiled = compile(normalize(matchPattern));
    if (PATTERNS.size() >= MAX_CACHED) {
      PATTERNS.clear(); // a reviewer's patterns are few; this only bounds a pathological input
    }
    PATTERNS.put(matchPattern, compiled);
    return compiled;
  }

  private static Pattern compile(String pattern) {
    if (pattern.equals("*.")) {
      return Pattern.compile(".*");
    }
    StringBuilder regex = new StringBuilder();
    String rest = pattern;
    if (rest.startsWith("**.")) {
      regex.append("(?:").append(LABEL_CHARS).append("+\\.)+");
      rest = rest.substring(3);
    }
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c == '*') {
        regex.append(LABEL_CHARS).append('*');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }
}
