package io.kubewarden.networkenforcer.cli.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.json.Json;

/** What {@code -o} names: a text report for people, or one JSON or YAML document for tools. */
public enum OutputFormat {
  TEXT,
  JSON,
  YAML;

  /** {@code text}, {@code json} or {@code yaml}; anything else is refused with exit code 2. */
  public static OutputFormat parse(String value) {
    return switch (value == null ? "text" : value.trim()) {
      case "text" -> TEXT;
      case "json" -> JSON;
      case "yaml" -> YAML;
      default -> throw new ConfigException("-o " + value + ": write text, json or yaml");
    };
  }

  /** The document as indented JSON or YAML, ending with a newline. */
  public String render(Object doc) {
    try {
      return switch (this) {
        case JSON ->
            Json.mapper().writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc)
                + System.lineSeparator();
        case YAML -> Json.yaml().writeValueAsString(doc);
        case TEXT -> throw new IllegalStateException("a text report is written by its command");
      };
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the report: " + e.getMessage(), e);
    }
  }
}
