package io.kubewarden.networkenforcer.ingest.transport;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Passes gRPC messages through as bytes, so that we decode them ourselves: a message that does not
 * decode goes to the dead-letter topic instead of failing the whole stream.
 */
public final class RawBytes implements MethodDescriptor.Marshaller<byte[]> {
  public static final RawBytes INSTANCE = new RawBytes();

  private RawBytes() {}

  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    try {
      return stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
