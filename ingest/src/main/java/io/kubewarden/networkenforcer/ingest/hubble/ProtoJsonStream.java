package io.kubewarden.networkenforcer.ingest.hubble;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.Message;
import io.kubewarden.networkenforcer.ingest.hubble.ProtoJsonTree.NotPlain;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fills a protobuf builder straight from a JSON token stream: {@link ProtoJsonTree}'s rules (the same
 * plain shapes, the same {@link NotPlain} for anything else) without building the Jackson tree first,
 * which was about half the cost of decoding a capture line. A key given twice is not plain here (the
 * tree keeps the last one), so such a line takes the tree path and reads as it always did.
 */
final class ProtoJsonStream {
  /**
   * What reading a field needs of its descriptor, looked up once: protobuf 4's descriptor getters
   * (type, label, containing message) resolve features on every call, 15-25 % of a line's decode.
   */
  private record Plan(FieldDescriptor field, FieldDescriptor.JavaType javaType, FieldDescriptor.Type type,
      boolean repeated, boolean map, int index, int oneof, boolean timestamp, Plan wrapped) {

    static Plan of(FieldDescriptor field) {
      boolean message = field.getJavaType() == FieldDescriptor.JavaType.MESSAGE;
      OneofDescriptor oneof = field.getContainingOneof();
      FieldDescriptor wrapped = message ? ProtoJsonTree.wrapped(field) : null;
      return new Plan(field, field.getJavaType(), field.getType(), field.isRepeated(), field.isMapField(),
          field.getIndex(), oneof == null ? -1 : oneof.getIndex(), message && ProtoJsonTree.isTimestamp(field),
          wrapped == null ? null : Plan.of(wrapped));
    }
  }

  /** Plans by JSON name and by proto name, per message type. */
  private static final Map<Descriptor, Map<String, Plan>> PLANS = new ConcurrentHashMap<>();

  private ProtoJsonStream() {}

  private static Map<String, Plan> plans(Descriptor type) {
    Map<String, Plan> plans = PLANS.get(type);
    if (plans == null) {
      Map<String, Plan> byName = new HashMap<>();
      ProtoJsonTree.fields(type).forEach((name, field) -> byName.put(name, Plan.of(field)));
      plans = PLANS.computeIfAbsent(type, t -> Map.copyOf(byName));
    }
    return plans;
  }

  /** Reads one object, the parser at its start; leaves the parser on its end. */
  static void merge(JsonParser parser, Message.Builder builder) throws IOException {
    merge(parser, builder, null);
  }

  /** As {@link #merge(JsonParser, Message.Builder)}; a key {@code refused} in this object is not plain. */
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

  private static Object value(Plan field, JsonParser parser, Message.Builder parent) throws IOException {
    JsonToken token = parser.currentToken();
    switch (field.javaType()) {
      case MESSAGE -> {
        if (field.timestamp()) {
          return ProtoJsonTree.timestamp(text(parser, "timestamp text expected"));
        }
        Message.Builder child = parent.newBuilderForField(field.field());
        if (field.wrapped() != null) {
          return child.setField(field.wrapped().field(), value(field.wrapped(), parser, child)).build();
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
        EnumValueDescriptor e = field.field().getEnumType().findValueByName(text(parser, "enum name expected"));
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

  /** As the tree: a JSON integer within 64 bits, or a string of digits (how 64-bit fields are printed). */
  private static long integer(Plan field, JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    if (token == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
      return ProtoJsonTree.inRange(field.type(), parser.getLongValue());
    }
    if (token == JsonToken.VALUE_STRING && ProtoJsonTree.isDigits(parser.getText())) {
      return ProtoJsonTree.inRange(field.type(), Long.parseLong(parser.getText()));
    }
    throw new NotPlain("integer expected");
  }
}
