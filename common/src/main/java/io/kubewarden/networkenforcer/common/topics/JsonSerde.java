package io.kubewarden.networkenforcer.common.topics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * JSON serde for one value type. A null payload is a tombstone and reads as null; anything that is
 * not a valid record raises {@link RecordDecodeException}.
 */
public final class JsonSerde<T> implements Serde<T> {
  private final Class<T> type;
  private final ObjectMapper mapper = Json.mapper();
  // A record with bytes after its value (two records glued together, a torn write) is not valid.
  private final ObjectReader reader;

  public JsonSerde(Class<T> type) {
    this.type = type;
    this.reader = mapper.readerFor(type).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  public Class<T> type() {
    return type;
  }

  public byte[] write(T value) {
    if (value == null) {
      return null;
    }
    try {
      return mapper.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new SerializationException(
          "cannot write " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
    }
  }

  public T read(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    try {
      T value = reader.readValue(data);
      if (value == null) {
        throw new RecordDecodeException(topic, "empty " + type.getSimpleName(), null);
      }
      return value;
    } catch (IOException e) {
      String reason = reason(e);
      throw new RecordDecodeException(
          topic, "not a valid " + type.getSimpleName() + at(e) + " (" + reason + ")", e);
    } catch (RuntimeException e) {
      if (e instanceof RecordDecodeException rde) {
        throw rde;
      }
      throw new RecordDecodeException(
          topic, "not a valid " + type.getSimpleName() + " (" + e.getMessage() + ")", e);
    }
  }

  /**
   * Jackson's message, or for a record whose constructor refused the values, the constructor's own
   * words: Jackson wraps them in "Cannot construct instance of `<Java class>`", which names the
   * program's insides rather than the field to fix.
   */
  static String reason(IOException e) {
    if (e instanceof ValueInstantiationException vie
        && vie.getCause() != null
        && vie.getCause().getMessage() != null) {
      Throwable cause = vie.getCause();
      // Objects.requireNonNull(field, "field"): the message is the field's name.
      return cause instanceof NullPointerException
          ? cause.getMessage() + " is missing"
          : cause.getMessage();
    }
    return e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
  }

  /**
   * Where in the record Jackson stopped, as {@code " at dst.workloadKind"}: its messages name the
   * type it could not build, not the field, and the field is what the producer has to fix.
   */
  static String at(IOException e) {
    if (!(e instanceof JsonMappingException jme) || jme.getPath().isEmpty()) {
      return "";
    }
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference r : jme.getPath()) {
      if (r.getFieldName() != null) {
        path.append(path.isEmpty() ? "" : ".").append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        path.append('[').append(r.getIndex()).append(']');
      }
    }
    return path.isEmpty() ? "" : " at " + path;
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> write(value);
  }

  @Override
  public Deserializer<T> deserializer() {
    return this::read;
  }
}
