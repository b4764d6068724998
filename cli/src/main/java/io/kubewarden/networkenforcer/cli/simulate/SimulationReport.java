package io.kubewarden.networkenforcer.cli.simulate;

import io.kubewarden.networkenforcer.cli.config.OutputFormat;
import io.kubewarden.networkenforcer.cli.config.ReportOptions;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prints a simulation: a table for people, or one JSON or YAML document for tools ({@code -o
 * json|yaml}).
 */
final class SimulationReport {
  private SimulationReport() {}

  static void document(PrintWriter out, OutputFormat format, String source, Simulation.Result r) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("source", source);
    doc.put("flows", r.flows());
    doc.put("wouldDeny", r.anyDenied());
    doc.put("denied", r.denied());
    doc.put("undetermined", r.undetermined());
    doc.put("unmatchedRules", r.unmatchedRules());
    doc.put("policies", r.selectedFlows());
    ReportOptions.write(out, format, doc);
  }

  static void text(PrintWriter out, String source, Simulation.Result r) {
    out.println(
        "Simulated "
            + r.selectedFlows().size()
            + " "
            + plural(r.selectedFlows().size(), "policy", "policies")
            + " against "
            + r.flows()
            + " flow "
            + plural(r.flows(), "record", "records")
            + " from "
            + source
            + ".");
    r.selectedFlows()
        .forEach(
            (policy, n) ->
                out.println(
                    "  " + policy + ": selected " + n + " flow " + plural(n, "end", "ends")));
    if (r.denied().isEmpty()) {
      out.println("Nothing would be denied.");
    } else {
      out.println(
          "Would deny "
              + r.denied().size()
              + " "
              + plural(r.denied().size(), "connection", "connections")
              + ":");
      table(out, r.denied());
    }
    if (!r.undetermined().isEmpty()) {
      out.println(
          "Undetermined (the record lacks the port, or the number of a named port; not counted as denied):");
      table(out, r.undetermined());
    }
    if (r.unmatchedRules().isEmpty()) {
      out.println("Every rule matched at least one flow.");
    } else {
      out.println("Rules that matched no flow:");
      for (Simulation.UnmatchedRule u : r.unmatchedRules()) {
        out.println(
            "  "
                + u.policy()
                + " "
                + u.direction().lowerCase()
                + "["
                + u.index()
                + "]: "
                + u.rule());
      }
    }
  }

  private static void table(PrintWriter out, List<Simulation.Connection> rows) {
    String format = "  %-34s %-8s %-34s %-9s %7s  %-30s %-30s %s%n";
    out.printf(
        format, "TARGET", "DIR", "PEER", "PORT", "COUNT", "FIRST SEEN", "LAST SEEN", "POLICIES");
    for (Simulation.Connection c : rows) {
      out.printf(
          format,
          c.target(),
          c.direction(),
          c.peer(),
          c.protocol() + "/" + c.port(),
          c.count(),
          c.firstSeen(),
          c.lastSeen(),
          String.join(", ", c.policies()));
    }
  }

  private static String plural(long n, String one, String many) {
    return n == 1 ? one : many;
  }
}
