package io.kubewarden.networkenforcer.common.codec;

/** Maps one value type to and from its fields in the wire format (a message body, no header). */
public interface BinaryCodec<T> {

  void write(WireWriter out, T value);

  T read(WireReader in);
}
