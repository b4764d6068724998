package io.kubewarden.networkenforcer.ingest.publishing;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;

/** A provider's protobuf record as one line of JSON (the form of `hubble observe -o json`). */
public final class ProtoJson {
  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().omittingInsignificantWhitespace();

  private ProtoJson() {}

  public static String print(MessageOrBuilder message) {
    try {
      return PRINTER.print(message);
    } catch (InvalidProtocolBufferException e) {
      // Only Any fields of unknown types fail; the text form still shows what came in.
      return message.toString();
    }
  }
}
