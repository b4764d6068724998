package io.kubewarden.networkenforcer.processor.decoding;

import org.apache.kafka.common.header.Headers;

/**
 * An input record after decoding: either its value (null for a tombstone) or, when it could not be
 * read, the original bytes with the dead-letter headers that explain why.
 */
public record Decoded<V>(V value, byte[] rawKey, byte[] rawValue, Headers deadLetterHeaders) {

  public static <V> Decoded<V> ok(V value) {
    return new Decoded<>(value, null, null, null);
  }

  public static <V> Decoded<V> failed(byte[] rawKey, byte[] rawValue, Headers deadLetterHeaders) {
    return new Decoded<>(null, rawKey, rawValue, deadLetterHeaders);
  }

  public boolean isFailed() {
    return deadLetterHeaders != null;
  }
}
