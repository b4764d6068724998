package io.kubewarden.networkenforcer.cli.config;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.util.List;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/** Sets the log level of the process (logs go to stderr; see logback.xml). */
public final class LogLevels {
  private static final List<String> KAFKA_LOGGERS =
      List.of("org.apache.kafka", "kafka", "state.change.logger");

  private LogLevels() {}

  /** Sets the root level; {@code debug|info|warn|error}. */
  public static void apply(String level) {
    root().setLevel(parse(level));
  }

  /**
   * For one-shot commands: only the command's own output, warnings and errors; the embedded
   * broker's and Kafka clients' start-up warnings are noise there.
   */
  public static void quiet(String level) {
    Level l = parse(level);
    root().setLevel(l);
    if (l.isGreaterOrEqual(Level.WARN)) {
      KAFKA_LOGGERS.forEach(name -> ((Logger) LoggerFactory.getLogger(name)).setLevel(Level.ERROR));
    }
  }

  static Level parse(String level) {
    String l = level == null ? "" : level.trim().toLowerCase(Locale.ROOT);
    return switch (l) {
      case "trace" -> Level.TRACE;
      case "debug" -> Level.DEBUG;
      case "info" -> Level.INFO;
      case "warn", "warning" -> Level.WARN;
      case "error" -> Level.ERROR;
      default ->
          throw new ConfigException(
              "log level '"
                  + level
                  + "' is not one of debug, info, warn, error; "
                  + "fix --log-level or NE_LOG_LEVEL");
    };
  }

  private static Logger root() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}
