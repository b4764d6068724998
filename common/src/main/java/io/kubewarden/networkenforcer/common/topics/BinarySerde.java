package io.kubewarden.networkenforcer.common.topics;

import io.kubewarden.networkenforcer.common.codec.BinaryCodec;
import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.codec.WireWriter;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Compact binary serde for a high-volume topic, that still reads the JSON written before it.
 *
 * <p>Written records start with the byte {@value #MAGIC} (never the first byte of a JSON text) and
 * a format version ({@value #VERSION}), followed by the fields in the protocol-buffers wire format
 * ({@link BinaryCodec}). The format is detected per record: a record that does not start with the
 * magic byte is read as JSON, so a topic written by an older version replays unchanged. A reader
 * skips fields it does not know; a version above its own is refused with a clear reason (a newer
 * writer changed something incompatibly). A null payload is a tombstone.
 */
public final class BinarySerde<T> implements Serde<T> {
  public static final byte MAGIC = 0;
  public static final byte VERSION = 1;

  private final BinaryCodec<T> codec;
  private final JsonSerde<T> json;
  private final int sizeHint;
  private final Function<T, Optional<String>> check;

  public BinarySerde(Class<T> type, BinaryCodec<T> codec, int sizeHint) {
    this(type, codec, sizeHint, value -> Optional.empty());
  }

  /**
   * @param check what a record read must hold beyond its shape: empty when it may be used, else why
   *     not (the reason of the {@link RecordDecodeException})
   */
  public BinarySerde(
      Class<T> type, BinaryCodec<T> codec, int sizeHint, Function<T, Optional<String>> check) {
    this.codec = codec;
    this.json = new JsonSerde<>(type);
    this.sizeHint = sizeHint;
    this.check = check;
  }

  public byte[] write(T value) {
    if (value == null) {
      return null;
    }
    WireWriter out = new WireWriter(sizeHint);
    out.rawByte(MAGIC);
    out.rawByte(VERSION);
    codec.write(out, value);
    return out.toByteArray();
  }

  public T read(String topic, byte[] data) {
    T value = decode(topic, data);
    if (value != null) {
      Optional<String> problem = check.apply(value);
      if (problem.isPresent()) {
        throw new RecordDecodeException(
            topic, "not a valid " + json.type().getSimpleName() + ": " + problem.get(), null);
      }
    }
    return value;
  }

  private T decode(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    if (data.length == 0 || data[0] != MAGIC) {
      return json.read(topic, data);
    }
    String type = json.type().getSimpleName();
    if (data.length < 2) {
      throw new RecordDecodeException(
          topic, "not a valid " + type + " (binary record without a version)", null);
    }
    if (data[1] != VERSION) {
      throw new RecordDecodeException(
          topic,
          "not a valid "
              + type
              + " (binary format version "
              + data[1]
              + "; this version reads "
              + VERSION
              + ")",
          null);
    }
    try {
      return codec.read(new WireReader(data, 2, data.length));
    } catch (MalformedRecordException | IllegalArgumentException | NullPointerException e) {
      throw new RecordDecodeException(
          topic, "not a valid " + type + " (" + e.getMessage() + ")", e);
    }
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
