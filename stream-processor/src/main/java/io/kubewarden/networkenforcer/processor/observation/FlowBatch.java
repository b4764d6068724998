package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Many records of the flows topic in one value, for the in-process driver of offline learning and
 * replay ({@link io.kubewarden.networkenforcer.processor.config.ProcessorConfig#flowBatches}): the
 * driver commits and checks each record it is handed, which cost more than combining a repeated
 * flow, so it is handed a few hundred at a time. The combiner takes each out and treats it exactly
 * as the record it stands for (its key, value and timestamp). Never on a topic: the service does
 * not read batches.
 *
 * <p>Layout: the number of records (int), then per record its timestamp (long), key length (int, -1
 * for none), key, value length (int, -1 for a tombstone) and value, big-endian.
 */
public final class FlowBatch {
  /** One record as the flows topic would hold it. */
  public record Entry(byte[] key, byte[] value, long timestamp) {}

  /** Receives each record of a batch in order. */
  @FunctionalInterface
  public interface Sink {
    void accept(byte[] key, byte[] value, long timestamp);
  }

  private FlowBatch() {}

  public static byte[] encode(List<Entry> entries) {
    int size = 4;
    for (Entry e : entries) {
      size += 16 + length(e.key()) + length(e.value());
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.putInt(entries.size());
    for (Entry e : entries) {
      out.putLong(e.timestamp());
      put(out, e.key());
      put(out, e.value());
    }
    return out.array();
  }

  /**
   * Hands each record of {@code batch} to {@code sink}, in order.
   *
   * @throws MalformedRecordException when the bytes are not a batch
   */
  public static void forEach(byte[] batch, Sink sink) {
    try {
      ByteBuffer in = ByteBuffer.wrap(batch);
      int n = in.getInt();
      for (int i = 0; i < n; i++) {
        long timestamp = in.getLong();
        byte[] key = get(in);
        byte[] value = get(in);
        sink.accept(key, value, timestamp);
      }
      if (in.hasRemaining()) {
        throw new MalformedRecordException("a flow batch with bytes after its last record");
      }
    } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
      throw new MalformedRecordException("not a flow batch: " + e);
    }
  }

  private static int length(byte[] bytes) {
    return bytes == null ? 0 : bytes.length;
  }

  private static void put(ByteBuffer out, byte[] bytes) {
    if (bytes == null) {
      out.putInt(-1);
    } else {
      out.putInt(bytes.length);
      out.put(bytes);
    }
  }

  private static byte[] get(ByteBuffer in) {
    int length = in.getInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return bytes;
  }
}
