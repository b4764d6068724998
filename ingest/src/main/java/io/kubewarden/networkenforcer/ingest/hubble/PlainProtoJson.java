package io.kubewarden.networkenforcer.ingest.hubble;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fills a protobuf builder from JSON in the plain shapes {@code hubble observe -o jsonpb} prints:
 * what protobuf's {@code JsonFormat} would give for the same line, read straight from the JSON
 * tokens (of the line, or of a tree already parsed). Anything not plainly one of those shapes (a
 * number as a string where a number belongs, an enum number, a field given twice or under both
 * names, an offset timestamp, ...) throws {@link NotPlain}, and the caller lets {@code JsonFormat}
 * decide (so odd or bad lines are read, or refused with the message, exactly as before). Unknown
 * fields are ignored, as the parser used does. A line whose key repeats is not plain; its tree
 * (which keeps the last value) may be.
 */
final class PlainProtoJson {
  /** The line is not in the plain shape handled here; JsonFormat must read it. */
  static final class NotPlain extends RuntimeException {
    NotPlain(String why) {
      super(why, null, false, false);
    }
  }

  private static final String TIMESTAMP = "google.protobuf.Timestamp";
  private static final Set<String> WRAPPERS =
      Set.of(
          "google.protobuf.BoolValue",
          "google.protobuf.Int32Value",
          "google.protobuf.UInt32Value",
          "google.protobuf.Int64Value",
          "google.protobuf.UInt64Value",
          "google.protobuf.StringValue",
          "google.protobuf.DoubleValue",
          "google.protobuf.FloatValue");

  /**
   * What reading a field needs of its descriptor, looked up once: protobuf 4's descriptor getters
   * (type, label, containing message) resolve features on every call, 15-25 % of a line's decode.
   *
   * @param timestamp a {@code google.protobuf.Timestamp}, written as text
   * @param wrapped the {@code value} field of a wrapper type, written as the bare value; else null
   */
  private record Plan(
      FieldDescriptor field,
      FieldDescriptor.JavaType javaType,
      FieldDescriptor.Type type,
      boolean repeated,
      boolean map,
      int index,
      int oneof,
      boolean timestamp,
      Plan wrapped) {

    static Plan of(FieldDescriptor field) {
      String message =
          field.getJavaType() == FieldDescriptor.JavaType.MESSAGE
              ? field.getMessageType().getFullName()
              : "";
      OneofDescriptor oneof = field.getContainingOneof();
      return new Plan(
          field,
          field.getJavaType(),
          field.getType(),
          field.isRepeated(),
          field.isMapField(),
          field.getIndex(),
          oneof == null ? -1 : oneof.getIndex(),
          TIMESTAMP.equals(message),
          WRAPPERS.contains(message)
              ? Plan.of(field.getMessageType().findFieldByName("value"))
              : null);
    }
  }

  /** Plans by JSON name and by proto name, per message type. */
  private static final Map<Descriptor, Map<String, Plan>> PLANS = new ConcurrentHashMap<>();

  private PlainProtoJson() {}

  private static Map<String, Plan> plans(Descriptor type) {
    Map<String, Plan> plans = PLANS.get(type);
    if (plans == null) {
      Map<String, Plan> byName = new HashMap<>();
      for (FieldDescriptor field : type.getFields()) {
        Plan plan = Plan.of(field);
        byName.put(field.getName(), plan);
        byName.put(field.getJsonName(), plan);
      }
      plans = PLANS.computeIfAbsent(type, t -> Map.copyOf(byName));
    }
    return plans;
  }

  /** Reads an already parsed object (its keys are unique: the tree kept the last of each). */
  static void merge(JsonNode object, Message.Builder builder) {
    try (JsonParser parser = object.traverse()) {
      parser.nextToken();
      merge(parser, builder);
    } catch (IOException e) {
      // A tree is read from memory: there is no I/O to fail.
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one object, the parser at its start; leaves the parser on its end. */
  static void merge(JsonParser parser, Message.Builder builder) throws IOException {
    merge(parser, builder, null);
  }

  /**
   * As {@link #merge(JsonParser, Message.Builder)}; a key {@code refused} in this object is not
   * plain.
   */
  static void merge(JsonParser parser, Message.Builder builder, String refused) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      throw new NotPlain("not an object");
    }
    Map<String, Plan> fields = plans(builder.getDescriptorForType());
    // Fields and oneofs seen so far, by index (a message of ours has fewer than 64 of each).
    long seen = 0;
    long oneofs = 0;
    String name;
    while ((name = parser.nextFieldName()) != null) {
      if (name.equals(refused)) {
        throw new NotPlain("key " + refused);
      }
      JsonToken token = parser.nextToken();
      Plan field = fields.get(name);
      if (field == null) {
        parser.skipChildren();
        continue;
      }
      long bit = bit(field.index());
      if ((seen & bit) != 0) {
        throw new NotPlain("field given twice");
      }
      seen |= bit;
      if (token == JsonToken.VALUE_NULL) {
        throw new NotPlain("null");
      }
      if (field.oneof() >= 0) {
        long member = bit(field.oneof());
        if ((oneofs & member) != 0) {
          throw new NotPlain("two members of a oneof");
        }
        oneofs |= member;
      }
      if (field.map()) {
        throw new NotPlain("map");
      }
      if (field.repeated()) {
        if (token != JsonToken.START_ARRAY) {
          throw new NotPlain("repeated field without an array");
        }
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          if (parser.currentToken() == JsonToken.VALUE_NULL) {
            throw new NotPlain("null element");
          }
          builder.addRepeatedField(field.field(), value(field, parser, builder));
        }
      } else {
        builder.setField(field.field(), value(field, parser, builder));
      }
    }
    if (parser.currentToken() != JsonToken.END_OBJECT) {
      throw new NotPlain("object not closed");
    }
  }

  private static long bit(int index) {
    if (index >= Long.SIZE) {
      throw new NotPlain("more fields than the plain reader tracks");
    }
    return 1L << index;
  }

  private static Object value(Plan field, JsonParser parser, Message.Builder parent)
      throws IOException {
    JsonToken token = parser.currentToken();
    switch (field.javaType()) {
      case MESSAGE -> {
        if (field.timestamp()) {
          return timestamp(text(parser, "timestamp text expected"));
        }
        Message.Builder child = parent.newBuilderForField(field.field());
        if (field.wrapped() != null) {
          return child
              .setField(field.wrapped().field(), value(field.wrapped(), parser, child))
              .build();
        }
        merge(parser, child);
        return child.build();
      }
      case STRING -> {
        return text(parser, "string expected");
      }
      case BOOLEAN -> {
        if (token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE) {
          return token == JsonToken.VALUE_TRUE;
        }
        throw new NotPlain("boolean expected");
      }
      case INT -> {
        return (int) integer(field, parser);
      }
      case LONG -> {
        return integer(field, parser);
      }
      case DOUBLE -> {
        if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
          return parser.getDoubleValue();
        }
        throw new NotPlain("number expected");
      }
      case ENUM -> {
        EnumValueDescriptor e =
            field.field().getEnumType().findValueByName(text(parser, "enum name expected"));
        if (e == null) {
          throw new NotPlain("unknown enum name");
        }
        return e;
      }
      default -> throw new NotPlain("field type " + field.javaType());
    }
  }

  private static String text(JsonParser parser, String expected) throws IOException {
    if (parser.currentToken() != JsonToken.VALUE_STRING) {
      throw new NotPlain(expected);
    }
    return parser.getText();
  }

  /**
   * Integers as protobuf's JSON form writes them: 32-bit ones as JSON numbers, 64-bit ones as JSON
   * strings of digits (both are accepted either way by the fallback, which is left to do so).
   */
  private static long integer(Plan field, JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    if (token == JsonToken.VALUE_NUMBER_INT
        && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
      return inRange(field.type(), parser.getLongValue());
    }
    if (token == JsonToken.VALUE_STRING && isDigits(parser.getText())) {
      return inRange(field.type(), Long.parseLong(parser.getText()));
    }
    throw new NotPlain("integer expected");
  }

  /** {@code v}, when it fits the integer type {@code type}. */
  private static long inRange(FieldDescriptor.Type type, long v) {
    switch (type) {
      case INT32, SINT32, SFIXED32 -> {
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
          throw new NotPlain("out of range");
        }
      }
      case UINT32, FIXED32 -> {
        if (v < 0 || v > 0xFFFF_FFFFL) {
          throw new NotPlain("out of range");
        }
      }
      case UINT64, FIXED64 -> {
        if (v < 0) {
          throw new NotPlain("out of range");
        }
      }
      default -> {}
    }
    return v;
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty() || s.length() > 18) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}, the form protobuf prints; any other form is left to the
   * fallback.
   */
  private static Message timestamp(String s) {
    int n = s.length();
    if (n < 20
        || n > 30
        || s.charAt(n - 1) != 'Z'
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || s.charAt(10) != 'T'
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      throw new NotPlain("timestamp form");
    }
    int nanos = 0;
    if (n > 20) {
      if (s.charAt(19) != '.' || n == 21) {
        throw new NotPlain("timestamp form");
      }
      int digits = n - 21;
      int scale = 1;
      for (int i = digits; i < 9; i++) {
        scale *= 10;
      }
      nanos = digits(s, 20, n - 1) * scale;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 7);
    int day = digits(s, 8, 10);
    int hour = digits(s, 11, 13);
    int minute = digits(s, 14, 16);
    int second = digits(s, 17, 19);
    if (year < 1
        || month < 1
        || month > 12
        || day < 1
        || day > 31
        || hour > 23
        || minute > 59
        || second > 59) {
      throw new NotPlain("timestamp range");
    }
    long epochSecond;
    try {
      epochSecond =
          LocalDateTime.of(year, month, day, hour, minute, second).toEpochSecond(ZoneOffset.UTC);
    } catch (RuntimeException e) {
      throw new NotPlain("timestamp date");
    }
    return Timestamp.newBuilder().setSeconds(epochSecond).setNanos(nanos).build();
  }

  private static int digits(String s, int from, int to) {
    int v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        throw new NotPlain("digit expected");
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
