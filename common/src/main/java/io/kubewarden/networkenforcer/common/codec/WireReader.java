package io.kubewarden.networkenforcer.common.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads what {@link WireWriter} writes (the protocol-buffers wire format) from a byte array. A
 * nested message is read with {@link #nested()}, which shares the array and stops at the message's
 * end. Truncated or malformed input raises {@link MalformedRecordException}.
 */
public final class WireReader {
  private final byte[] buf;
  private int pos;
  private final int limit;

  public WireReader(byte[] buf, int offset, int limit) {
    this.buf = buf;
    this.pos = offset;
    this.limit = limit;
  }

  /** Where the next read starts, as an index into the array. */
  public int position() {
    return pos;
  }

  public boolean hasMore() {
    return pos < limit;
  }

  /** The next tag: field number in {@code tag >>> 3}, wire type in {@code tag & 7}. */
  public int readTag() {
    long tag = readVarint();
    if (tag >>> 3 == 0 || tag > Integer.MAX_VALUE) {
      throw new MalformedRecordException("invalid field tag " + tag + " at byte " + pos);
    }
    return (int) tag;
  }

  public static int field(int tag) {
    return tag >>> 3;
  }

  public long readVarint() {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= limit) {
        throw new MalformedRecordException("record ends inside a number");
      }
      byte b = buf[pos++];
      result |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw new MalformedRecordException("number longer than 10 bytes");
  }

  public int readInt() {
    long v = readVarint();
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new MalformedRecordException("number out of range: " + v);
    }
    return (int) v;
  }

  public boolean readBool() {
    return readVarint() != 0;
  }

  public String readString() {
    int n = readLength();
    String s = new String(buf, pos, n, StandardCharsets.UTF_8);
    pos += n;
    return s;
  }

  /**
   * Where the value of a length-delimited field (a string) lies, without reading it: its start in
   * the array in the high 32 bits, its length in the low 32 bits. Consumes what {@link
   * #readString()} would.
   */
  public long readSpan() {
    int n = readLength();
    long span = (long) pos << 32 | n;
    pos += n;
    return span;
  }

  /** The bytes of a length-delimited field, copied. */
  public byte[] readBytes() {
    int n = readLength();
    byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
    pos += n;
    return out;
  }

  /** A reader over the nested message that starts here; this reader continues after it. */
  public WireReader nested() {
    int n = readLength();
    WireReader inner = new WireReader(buf, pos, pos + n);
    pos += n;
    return inner;
  }

  /**
   * Steps over a length-delimited value (a nested message or a string) without reading it: the same
   * bytes {@link #nested()} or {@link #readString()} would consume.
   */
  public void skipLengthDelimited() {
    advance(readLength());
  }

  /** Skips the value of a field this version does not know (written by a newer one). */
  public void skip(int tag) {
    switch (tag & 7) {
      case WireWriter.VARINT -> readVarint();
      case WireWriter.FIXED64 -> advance(8);
      case WireWriter.LENGTH_DELIMITED -> advance(readLength());
      case WireWriter.FIXED32 -> advance(4);
      default ->
          throw new MalformedRecordException(
              "unsupported wire type " + (tag & 7) + " of field " + (tag >>> 3));
    }
  }

  private int readLength() {
    long n = readVarint();
    if (n < 0 || n > limit - pos) {
      throw new MalformedRecordException("length " + n + " runs past the end of the record");
    }
    return (int) n;
  }

  private void advance(int n) {
    if (n > limit - pos) {
      throw new MalformedRecordException("record ends inside a field");
    }
    pos += n;
  }
}
