package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.report.HtmlReport;
import io.kubewarden.networkenforcer.common.report.ProposalRules;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code learn --report FILE.html}: hands what learn wrote and counted to the HTML report. */
final class LearnReport {
  private LearnReport() {}

  /** Checks the option before the pipeline runs, so a bad path fails fast. */
  static void check(Path file) {
    if (Files.isDirectory(file)) {
      throw new LearnInputException(
          "--report "
              + file
              + " is a directory; name the HTML file to write, "
              + "e.g. "
              + file.resolve("report.html"));
    }
  }

  static void write(Path file, List<ProposalSnapshot> proposals, LearnSummary summary) {
    CaptureSummary capture = summary.capture();
    List<ReportModel.Dropped> dropped = new ArrayList<>();
    dropped.addAll(ReportModel.dropped("ingest", summary.dropReasons(), Map.of()));
    dropped.addAll(ReportModel.dropped("processor", summary.processorSkips(), Map.of()));
    if (capture.badLines() > 0) {
      dropped.add(
          new ReportModel.Dropped("ingest", "unreadable", capture.badLines(), capture.errors()));
    }
    ReportModel model =
        ReportModel.of(
                summary.input().getFileName().toString(),
                summary.format().source(),
                summary.backend().name(),
                new ReportModel.Totals(
                    capture.lines(),
                    capture.published(),
                    capture.droppedTotal(),
                    capture.badLines()),
                proposals,
                ProposalRules::describe,
                dropped)
            .withWarnings(summary.warnings());
    HtmlReport.write(file, model);
  }
}
