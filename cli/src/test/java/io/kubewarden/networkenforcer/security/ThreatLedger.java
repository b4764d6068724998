package io.kubewarden.networkenforcer.security;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What each attempt of a threat-model row expected and what it observed: an attacker's attempt
 * counts as refused, a legitimate call as accepted, only when the observed answer is exactly the
 * expected one (a status code, an exception class, a gRPC status).
 */
final class ThreatLedger {
  record Outcome(String row, String who, boolean attack, String expected, String observed) {
    boolean asExpected() {
      return expected.equals(observed);
    }

    String line(String answer) {
      return (attack ? "attack " : "legitimate ") + row + ": " + who + " -> " + answer;
    }
  }

  private final List<Outcome> outcomes = new ArrayList<>();

  void attack(String row, String who, String expected, String observed) {
    outcomes.add(new Outcome(row, who, true, expected, observed));
  }

  void legitimate(String row, String who, String expected, String observed) {
    outcomes.add(new Outcome(row, who, false, expected, observed));
  }

  List<String> observed() {
    return outcomes.stream().map(o -> o.line(o.observed())).toList();
  }

  List<String> expected() {
    return outcomes.stream().map(o -> o.line(o.expected())).toList();
  }

  long attempts() {
    return outcomes.stream().filter(Outcome::attack).count();
  }

  long refused() {
    return outcomes.stream().filter(o -> o.attack() && o.asExpected()).count();
  }

  long legitimateCalls() {
    return outcomes.stream().filter(o -> !o.attack()).count();
  }

  long accepted() {
    return outcomes.stream().filter(o -> !o.attack() && o.asExpected()).count();
  }

  /** The one summary line the issue asks the security test to print. */
  String summary() {
    return "threat model: attempts refused: "
        + refused()
        + " of "
        + attempts()
        + ", legitimate calls accepted: "
        + accepted()
        + " of "
        + legitimateCalls();
  }

  /** One short line per row, in the order the rows were walked. */
  List<String> rowLines() {
    Map<String, long[]> counts = new LinkedHashMap<>();
    for (Outcome o : outcomes) {
      long[] c = counts.computeIfAbsent(o.row(), r -> new long[4]);
      int at = o.attack() ? 0 : 2;
      c[at + 1]++;
      if (o.asExpected()) {
        c[at]++;
      }
    }
    List<String> lines = new ArrayList<>();
    counts.forEach(
        (row, c) ->
            lines.add(
                "  row "
                    + row
                    + ": refused "
                    + c[0]
                    + " of "
                    + c[1]
                    + ", accepted "
                    + c[2]
                    + " of "
                    + c[3]));
    return lines;
  }
}
