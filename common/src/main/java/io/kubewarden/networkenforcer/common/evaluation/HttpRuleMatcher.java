package io.kubewarden.networkenforcer.common.evaluation;

import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.HttpRule;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.L7Rules;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Does a port entry's {@code rules.http} let an HTTP request through, as Cilium's proxy decides:
 * YES when the entry has no HTTP rules, when the flow carries no request (its connection is allowed
 * at L3/L4 and handed to the proxy), or when one rule's {@code method} and {@code path} (regular
 * expressions, matched in full; absent: anything) match it; NO when none does; UNKNOWN when none
 * does and one could not be read.
 */
final class HttpRuleMatcher {
  /** Compiled expressions; a policy holds few, but a hostile one must not grow this unbounded. */
  private static final int CACHE_LIMIT = 4096;

  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  private HttpRuleMatcher() {}

  static Match matches(L7Rules rules, HttpRequest request) {
    if (rules == null || rules.getHttp() == null || rules.getHttp().isEmpty() || request == null) {
      return Match.YES;
    }
    boolean unknown = false;
    for (HttpRule rule : rules.getHttp()) {
      if (rule == null) {
        return Match.YES; // an empty rule matches every request
      }
      try {
        if (fullMatch(rule.getMethod(), request.method())
            && fullMatch(rule.getPath(), request.path())) {
          return Match.YES;
        }
      } catch (PatternSyntaxException e) {
        unknown = true;
      }
    }
    return unknown ? Match.UNKNOWN : Match.NO;
  }

  private static boolean fullMatch(String expression, String value) {
    if (expression == null || expression.isEmpty()) {
      return true;
    }
    Pattern pattern = PATTERNS.get(expression);
    if (pattern == null) {
      pattern = Pattern.compile(expression);
      if (PATTERNS.size() >= CACHE_LIMIT) {
        PATTERNS.clear();
      }
      PATTERNS.put(expression, pattern);
    }
    return pattern.matcher(value).matches();
  }
}
