package io.kubewarden.networkenforcer.writer.telemetry;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.util.Locale;

/** {@code telemetry.collectorStrategy}: where violation events go. */
public enum CollectorStrategy {
  /** No export; violations stay on the policy status only. */
  none,
  /** The collector the chart deploys next to the writer. */
  DEFAULT,
  /** A collector the user runs, at {@code telemetry.externalCollector.endpoint}. */
  external;

  public static CollectorStrategy parse(String value) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "none" -> none;
      case "default" -> DEFAULT;
      case "external" -> external;
      default ->
          throw new ConfigException(
              "telemetry collector strategy must be default, external or none; got '"
                  + value
                  + "'");
    };
  }

  @Override
  public String toString() {
    return this == DEFAULT ? "default" : name();
  }
}
