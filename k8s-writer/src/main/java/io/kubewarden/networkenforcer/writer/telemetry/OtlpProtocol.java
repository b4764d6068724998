package io.kubewarden.networkenforcer.writer.telemetry;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.util.Locale;

/** How violation events travel to the collector. */
public enum OtlpProtocol {
  grpc,
  http;

  public static OtlpProtocol parse(String value) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "grpc" -> grpc;
      case "http", "http/protobuf" -> http;
      default ->
          throw new ConfigException("telemetry protocol must be grpc or http; got '" + value + "'");
    };
  }
}
