package io.kubewarden.networkenforcer.cli.config;

import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * {@code -o text|json|yaml} and {@code --log-level} of the commands that print a report (simulate,
 * diff).
 */
public class ReportOptions {
  @Option(
      names = {"-o", "--output"},
      paramLabel = "text|json|yaml",
      defaultValue = "text",
      description =
          "Report format (default: ${DEFAULT-VALUE}): text for people, json or yaml for tools.")
  String output;

  @Option(
      names = "--log-level",
      paramLabel = "LEVEL",
      defaultValue = "warn",
      description = "debug, info, warn or error (default: ${DEFAULT-VALUE}); logs go to stderr.")
  String logLevel;

  /** Sets the log level, then says in which format the report goes (an unknown one is refused). */
  public OutputFormat start() {
    LogLevels.quiet(logLevel);
    return OutputFormat.parse(output);
  }

  /** Writes {@code doc} as JSON or YAML; text reports are the command's own. */
  public static void write(PrintWriter out, OutputFormat format, Object doc) {
    out.print(format.render(doc));
  }
}
