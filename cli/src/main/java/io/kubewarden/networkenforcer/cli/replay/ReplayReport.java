package io.kubewarden.networkenforcer.cli.replay;

import io.kubewarden.networkenforcer.cli.history.TimeWindow;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.report.HtmlReport;
import io.kubewarden.networkenforcer.common.report.ProposalRules;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code replay --report FILE.html}: the window's proposals on the same page learn writes. */
final class ReplayReport {
  private ReplayReport() {}

  /** Checks the option before the replay runs, so a bad path fails fast. */
  static void check(Path file) {
    if (Files.isDirectory(file)) {
      throw new ConfigException(
          "--report "
              + file
              + " is a directory; name the HTML file to write, e.g. "
              + file.resolve("report.html"));
    }
  }

  static void write(
      Path file,
      String flowsTopic,
      TimeWindow window,
      Backend backend,
      ReplayPipeline.Result result,
      List<ProposalSnapshot> proposals) {
    long inWindow = result.read().inWindow();
    long unreadable = result.read().unreadable();
    List<ReportModel.Dropped> dropped = new ArrayList<>();
    if (inWindow > result.replayed()) {
      dropped.add(
          new ReportModel.Dropped(
              "replay",
              "outside the selected namespaces",
              inWindow - result.replayed(),
              List.of()));
    }
    if (unreadable > 0) {
      dropped.add(new ReportModel.Dropped("replay", "unreadable", unreadable, List.of()));
    }
    ReportModel model =
        ReportModel.of(
            flowsTopic + " " + window.from() + " to " + window.to(),
            "flows topic",
            backend.name(),
            new ReportModel.Totals(
                inWindow + unreadable, result.replayed(), inWindow - result.replayed(), unreadable),
            proposals,
            ProposalRules::describe,
            dropped);
    HtmlReport.write(file, model);
  }
}
