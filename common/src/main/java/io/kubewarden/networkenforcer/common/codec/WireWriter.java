package io.kubewarden.networkenforcer.common.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes the protocol-buffers wire format (tag = field number and wire type, varints,
 * length-delimited strings and nested messages) into a growing byte array, without generated
 * classes: records of the internal topics are small and hand-mapped, and a reader that does not
 * know a field number skips it, so fields can be added without breaking older readers.
 *
 * <p>Not thread-safe: one writer per record.
 */
public final class WireWriter {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int FIXED32 = 5;

  private byte[] buf;
  private int pos;

  public WireWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  public void rawByte(int b) {
    ensure(1);
    buf[pos++] = (byte) b;
  }

  public void varint(int field, long value) {
    tag(field, VARINT);
    rawVarint(value);
  }

  public void bool(int field, boolean value) {
    varint(field, value ? 1 : 0);
  }

  /** Writes nothing for null, so an absent string stays absent. */
  public void string(int field, String value) {
    if (value == null) {
      return;
    }
    tag(field, LENGTH_DELIMITED);
    int n = value.length();
    // Mostly ASCII (names, labels, addresses): one byte per char, no intermediate array.
    if (n < 128 && isAscii(value)) {
      ensure(1 + n);
      buf[pos++] = (byte) n;
      for (int i = 0; i < n; i++) {
        buf[pos++] = (byte) value.charAt(i);
      }
      return;
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    rawVarint(bytes.length);
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, pos, bytes.length);
    pos += bytes.length;
  }

  /** A length-delimited field holding {@code bytes} as they are (an already encoded message). */
  public void bytes(int field, byte[] bytes) {
    tag(field, LENGTH_DELIMITED);
    rawVarint(bytes.length);
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, pos, bytes.length);
    pos += bytes.length;
  }

  /**
   * Starts a nested message of {@code field}; write its fields, then {@link #endMessage} with the
   * returned mark.
   */
  public int beginMessage(int field) {
    tag(field, LENGTH_DELIMITED);
    ensure(1);
    // One byte reserved for the length: nested messages are short; longer ones are shifted once.
    return pos++;
  }

  public void endMessage(int mark) {
    int length = pos - mark - 1;
    int lengthBytes = varintSize(length);
    if (lengthBytes > 1) {
      ensure(lengthBytes - 1);
      System.arraycopy(buf, mark + 1, buf, mark + lengthBytes, length);
      pos += lengthBytes - 1;
    }
    int at = mark;
    long v = length;
    while ((v & ~0x7FL) != 0) {
      buf[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[at] = (byte) v;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, pos);
  }

  private void tag(int field, int wireType) {
    rawVarint(((long) field << 3) | wireType);
  }

  private void rawVarint(long value) {
    ensure(10);
    long v = value;
    while ((v & ~0x7FL) != 0) {
      buf[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  private static int varintSize(long value) {
    int n = 1;
    long v = value;
    while ((v & ~0x7FL) != 0) {
      n++;
      v >>>= 7;
    }
    return n;
  }

  private static boolean isAscii(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      if (s.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  private void ensure(int more) {
    if (pos + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + more));
    }
  }
}
