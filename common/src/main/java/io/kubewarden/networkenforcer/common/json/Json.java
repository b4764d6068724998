package io.kubewarden.networkenforcer.common.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The one JSON (and YAML) configuration every topic and file uses. */
public final class Json {

  private static final ObjectMapper MAPPER = configure(JsonMapper.builder().build());
  private static final ObjectMapper YAML =
      configure(
          new ObjectMapper(
              new YAMLFactory()
                  .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                  .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)));

  private Json() {}

  private static ObjectMapper configure(ObjectMapper mapper) {
    return mapper
        .registerModule(new JavaTimeModule())
        .registerModule(new Jdk8Module())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        // Newer writers may add fields; older readers keep working.
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .setSerializationInclusion(JsonInclude.Include.NON_NULL);
  }

  /** Thread-safe shared JSON mapper. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** Thread-safe shared YAML mapper (manifests written by {@code learn}). */
  public static ObjectMapper yaml() {
    return YAML;
  }
}
