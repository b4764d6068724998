package io.kubewarden.networkenforcer.processor.learning;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A JSON value already written, as UTF-8 bytes, for {@code JsonGenerator.writeRawValue}: the generator
 * copies the bytes as they are. The quoted forms are there because the interface asks for them; a raw
 * value never uses them.
 */
final class RawJson implements SerializableString {
  private final byte[] utf8;

  RawJson(byte[] utf8) {
    this.utf8 = utf8;
  }

  @Override
  public String getValue() {
    return new String(utf8, StandardCharsets.UTF_8);
  }

  @Override
  public int charLength() {
    return getValue().length();
  }

  @Override
  public char[] asQuotedChars() {
    return JsonStringEncoder.getInstance().quoteAsString(getValue());
  }

  @Override
  public byte[] asUnquotedUTF8() {
    return utf8;
  }

  @Override
  public byte[] asQuotedUTF8() {
    return JsonStringEncoder.getInstance().quoteAsUTF8(getValue());
  }

  @Override
  public int appendQuotedUTF8(byte[] buffer, int offset) {
    return append(asQuotedUTF8(), buffer, offset);
  }

  @Override
  public int appendQuoted(char[] buffer, int offset) {
    return append(asQuotedChars(), buffer, offset);
  }

  @Override
  public int appendUnquotedUTF8(byte[] buffer, int offset) {
    return append(utf8, buffer, offset);
  }

  @Override
  public int appendUnquoted(char[] buffer, int offset) {
    return append(getValue().toCharArray(), buffer, offset);
  }

  @Override
  public int writeQuotedUTF8(OutputStream out) throws IOException {
    byte[] quoted = asQuotedUTF8();
    out.write(quoted);
    return quoted.length;
  }

  @Override
  public int writeUnquotedUTF8(OutputStream out) throws IOException {
    out.write(utf8);
    return utf8.length;
  }

  @Override
  public int putQuotedUTF8(ByteBuffer buffer) {
    return put(asQuotedUTF8(), buffer);
  }

  @Override
  public int putUnquotedUTF8(ByteBuffer buffer) {
    return put(utf8, buffer);
  }

  /** Copies {@code from} into {@code buffer} at {@code offset}: its length, or -1 when it does not fit. */
  private static int append(byte[] from, byte[] buffer, int offset) {
    if (offset + from.length > buffer.length) {
      return -1;
    }
    System.arraycopy(from, 0, buffer, offset, from.length);
    return from.length;
  }

  private static int append(char[] from, char[] buffer, int offset) {
    if (offset + from.length > buffer.length) {
      return -1;
    }
    System.arraycopy(from, 0, buffer, offset, from.length);
    return from.length;
  }

  private static int put(byte[] from, ByteBuffer buffer) {
    if (from.length > buffer.remaining()) {
      return -1;
    }
    buffer.put(from);
    return from.length;
  }

  @Override
  public String toString() {
    return getValue();
  }
}
