package io.kubewarden.networkenforcer.common.evaluation;

/**
 * Three-valued result of matching one part of a rule (Kleene logic): a flow record may lack the
 * port or a named port's number, and then "does this rule match" has no yes/no answer.
 */
enum Match {
  YES,
  NO,
  UNKNOWN;

  /** Conjunction: NO wins over UNKNOWN, UNKNOWN over YES. */
  Match and(Match other) {
    if (this == NO || other == NO) {
      return NO;
    }
    return this == UNKNOWN || other == UNKNOWN ? UNKNOWN : YES;
  }

  static Match of(boolean value) {
    return value ? YES : NO;
  }
}
