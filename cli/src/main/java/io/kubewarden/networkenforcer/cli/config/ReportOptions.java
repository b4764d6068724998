package io.kubewarden.networkenforcer.cli.config;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import picocli.CommandLine.Option;

/** {@code -o text|json} and {@code --log-level} of the commands that print a report (simulate, diff). */
public class ReportOptions {
  @Option(names = {"-o", "--output"}, paramLabel = "text|json", defaultValue = "text",
      description = "Report format (default: ${DEFAULT-VALUE}).")
  String output;

  @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "warn",
      description = "debug, info, warn or error (default: ${DEFAULT-VALUE}); logs go to stderr.")
  String logLevel;

  /** Sets the log level, then says whether the report is JSON (an unknown format is refused). */
  public boolean start() {
    LogLevels.quiet(logLevel);
    return switch (output == null ? "text" : output.trim()) {
      case "text" -> false;
      case "json" -> true;
      default -> throw new ConfigException("-o " + output + ": write text or json");
    };
  }
}
