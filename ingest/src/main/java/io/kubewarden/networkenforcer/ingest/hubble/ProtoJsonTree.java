package io.kubewarden.networkenforcer.ingest.hubble;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fills a protobuf builder from an already parsed Jackson tree, for the plain shapes {@code hubble
 * observe -o jsonpb} prints: what protobuf's {@code JsonFormat} would give for the same line, without
 * parsing the line a second time. Anything not plainly one of those shapes (a number as a string
 * where a number belongs, an enum number, a field given twice, an offset timestamp, ...) throws
 * {@link NotPlain}, and the caller lets {@code JsonFormat} decide (so odd or bad lines are read, or
 * refused with the message, exactly as before). Unknown fields are ignored, as the parser used does.
 */
final class ProtoJsonTree {
  /** The line is not in the plain shape handled here; JsonFormat must read it. */
  static final class NotPlain extends RuntimeException {
    NotPlain(String why) {
      super(why, null, false, false);
    }
  }

  private static final String TIMESTAMP = "google.protobuf.Timestamp";
  private static final Set<String> WRAPPERS = Set.of("google.protobuf.BoolValue", "google.protobuf.Int32Value",
      "google.protobuf.UInt32Value", "google.protobuf.Int64Value", "google.protobuf.UInt64Value",
      "google.protobuf.StringValue", "google.protobuf.DoubleValue", "google.protobuf.FloatValue");
  /** Fields by JSON name and by proto name, per message type. */
  private static final Map<Descriptor, Map<String, FieldDescriptor>> FIELDS = new ConcurrentHashMap<>();
  /** The {@code value} field of each wrapper type (a descriptor's own lookup builds a string each time). */
  private static final Map<Descriptor, FieldDescriptor> WRAPPED = new ConcurrentHashMap<>();

  private ProtoJsonTree() {}

  static void merge(JsonNode object, Message.Builder builder) {
    if (!object.isObject()) {
      throw new NotPlain("not an object");
    }
    Map<String, FieldDescriptor> fields = fields(builder.getDescriptorForType());
    Set<FieldDescriptor> seen = null;
    Set<OneofDescriptor> oneofs = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      FieldDescriptor field = fields.get(entry.getKey());
      if (field == null) {
        continue;
      }
      if (seen == null) {
        seen = new HashSet<>();
      }
      if (!seen.add(field)) {
        throw new NotPlain("field given twice");
      }
      JsonNode value = entry.getValue();
      if (value.isNull()) {
        throw new NotPlain("null");
      }
      OneofDescriptor oneof = field.getContainingOneof();
      if (oneof != null) {
        if (oneofs == null) {
          oneofs = new HashSet<>();
        }
        if (!oneofs.add(oneof)) {
          throw new NotPlain("two members of a oneof");
        }
      }
      if (field.isMapField()) {
        throw new NotPlain("map");
      }
      if (field.isRepeated()) {
        if (!value.isArray()) {
          throw new NotPlain("repeated field without an array");
        }
        for (JsonNode element : value) {
          if (element.isNull()) {
            throw new NotPlain("null element");
          }
          builder.addRepeatedField(field, value(field, element, builder));
        }
      } else {
        builder.setField(field, value(field, value, builder));
      }
    }
  }

  /** The fields of {@code type} by JSON name and by proto name. */
  static Map<String, FieldDescriptor> fields(Descriptor type) {
    return FIELDS.computeIfAbsent(type, ProtoJsonTree::fieldsOf);
  }

  /** Whether {@code field} holds a well-known type written as a bare value: a timestamp or a wrapper. */
  static boolean isTimestamp(FieldDescriptor field) {
    return TIMESTAMP.equals(field.getMessageType().getFullName());
  }

  /** The {@code value} field of a wrapper type's field, or null when it is not a wrapper. */
  static FieldDescriptor wrapped(FieldDescriptor field) {
    if (!WRAPPERS.contains(field.getMessageType().getFullName())) {
      return null;
    }
    return WRAPPED.computeIfAbsent(field.getMessageType(), t -> t.findFieldByName("value"));
  }

  private static Map<String, FieldDescriptor> fieldsOf(Descriptor type) {
    Map<String, FieldDescriptor> byName = new HashMap<>();
    for (FieldDescriptor field : type.getFields()) {
      byName.put(field.getName(), field);
      byName.put(field.getJsonName(), field);
    }
    return byName;
  }

  private static Object value(FieldDescriptor field, JsonNode value, Message.Builder parent) {
    switch (field.getJavaType()) {
      case MESSAGE -> {
        if (isTimestamp(field)) {
          if (!value.isTextual()) {
            throw new NotPlain("timestamp text expected");
          }
          return timestamp(value.textValue());
        }
        Message.Builder child = parent.newBuilderForField(field);
        FieldDescriptor inner = wrapped(field);
        if (inner != null) {
          return child.setField(inner, value(inner, value, child)).build();
        }
        merge(value, child);
        return child.build();
      }
      case STRING -> {
        if (!value.isTextual()) {
          throw new NotPlain("string expected");
        }
        return value.textValue();
      }
      case BOOLEAN -> {
        if (!value.isBoolean()) {
          throw new NotPlain("boolean expected");
        }
        return value.booleanValue();
      }
      case INT -> {
        return (int) integer(field, value);
      }
      case LONG -> {
        return integer(field, value);
      }
      case DOUBLE -> {
        if (!value.isNumber()) {
          throw new NotPlain("number expected");
        }
        return value.doubleValue();
      }
      case ENUM -> {
        if (!value.isTextual()) {
          throw new NotPlain("enum name expected");
        }
        EnumValueDescriptor e = field.getEnumType().findValueByName(value.textValue());
        if (e == null) {
          throw new NotPlain("unknown enum name");
        }
        return e;
      }
      default -> throw new NotPlain("field type " + field.getJavaType());
    }
  }

  /**
   * Integers as protobuf's JSON form writes them: 32-bit ones as JSON numbers, 64-bit ones as JSON
   * strings of digits (both are accepted either way by the fallback, which is left to do so).
   */
  private static long integer(FieldDescriptor field, JsonNode value) {
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      return inRange(field, value.longValue());
    }
    if (value.isTextual() && isDigits(value.textValue())) {
      return inRange(field, Long.parseLong(value.textValue()));
    }
    throw new NotPlain("integer expected");
  }

  /** {@code v}, when it fits the field's integer type. */
  static long inRange(FieldDescriptor field, long v) {
    return inRange(field.getType(), v);
  }

  /** {@code v}, when it fits the integer type {@code type}. */
  static long inRange(FieldDescriptor.Type type, long v) {
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
      default -> { }
    }
    return v;
  }

  static boolean isDigits(String s) {
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

  /** {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}, the form protobuf prints; any other form is left to the fallback. */
  static Message timestamp(String s) {
    int n = s.length();
    if (n < 20 || n > 30 || s.charAt(n - 1) != 'Z' || s.charAt(4) != '-' || s.charAt(7) != '-'
        || s.charAt(10) != 'T' || s.charAt(13) != ':' || s.charAt(16) != ':') {
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
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
      throw new NotPlain("timestamp range");
    }
    long epochSecond;
    try {
      epochSecond = LocalDateTime.of(year, month, day, hour, minute, second).toEpochSecond(ZoneOffset.UTC);
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
