package io.kubewarden.networkenforcer.common.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Why a document does not read as an object of ours, in the words of its fields: where ({@code at
 * spec.rules[0].to[0].operation}) and what the field wants. Jackson's own messages name Java types
 * and constructors, which mean nothing to whoever has to fix the file.
 */
public final class JsonProblem {
  private static final Pattern QUALIFIED =
      Pattern.compile("`?(?:[a-zA-Z_$][\\w$]*\\.)+([A-Z][\\w$]*)`?");

  private JsonProblem() {}

  /**
   * {@code at <path>: <what is wrong>}, or only what is wrong for the document itself; one line.
   */
  public static String describe(JsonProcessingException e) {
    return describe(e, "");
  }

  /**
   * Why a file did not parse, whatever threw: the innermost cause, described as above when it is
   * Jackson's, otherwise its message without Java class names; one line.
   */
  public static String of(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    if (t instanceof JsonProcessingException jpe) {
      String where =
          jpe.getLocation() == null || jpe.getLocation().getLineNr() <= 0
              ? ""
              : " (line "
                  + jpe.getLocation().getLineNr()
                  + ", column "
                  + jpe.getLocation().getColumnNr()
                  + ")";
      return describe(jpe) + where;
    }
    String message =
        t.getMessage() == null ? t.getClass().getSimpleName() : firstLine(t.getMessage());
    return plain(message);
  }

  /** A message without Java class names, qualified or leading ("CharConversionException: "). */
  private static String plain(String message) {
    return QUALIFIED
        .matcher(message.replaceFirst("^[\\w.$]+(Exception|Error): ", ""))
        .replaceAll("$1");
  }

  /**
   * As {@link #describe(JsonProcessingException)} for a part of a document read on its own: {@code
   * prefix} is where that part is ({@code spec}), so the path is the document's.
   */
  public static String describe(JsonProcessingException e, String prefix) {
    String what = what(e);
    String path = e instanceof JsonMappingException jme ? path(jme) : "";
    String full =
        prefix.isEmpty()
            ? path
            : path.isEmpty() ? prefix : prefix + (path.startsWith("[") ? "" : ".") + path;
    return (full.isEmpty() ? "" : "at " + full + ": ") + what;
  }

  /** The field path Jackson was at, as {@code spec.rules[0].to}; empty at the top. */
  public static String path(JsonMappingException e) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        path.append(path.isEmpty() ? "" : ".").append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        path.append('[').append(r.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  private static String what(JsonProcessingException e) {
    if (e instanceof ValueInstantiationException
        && e.getCause() != null
        && e.getCause().getMessage() != null) {
      Throwable cause = e.getCause();
      return cause instanceof NullPointerException
          ? cause.getMessage() + " is missing"
          : firstLine(cause.getMessage());
    }
    if (e instanceof UnrecognizedPropertyException u) {
      return "unknown field " + u.getPropertyName();
    }
    if (e instanceof InvalidFormatException f) {
      return "the value " + quoted(f.getValue()) + " is not " + wanted(f.getTargetType());
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      return "want " + wanted(m.getTargetType());
    }
    return plain(firstLine(e.getOriginalMessage()));
  }

  private static String wanted(Class<?> type) {
    if (type.isEnum()) {
      return "one of "
          + Arrays.stream(type.getEnumConstants())
              .map(Object::toString)
              .collect(Collectors.joining(", "));
    }
    if (type.isArray() || Collection.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (type == String.class) {
      return "a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (Number.class.isAssignableFrom(type) || (type.isPrimitive() && type != char.class)) {
      return "a number that fits "
          + type.getSimpleName().toLowerCase(Locale.ROOT).replace("integer", "int");
    }
    if (type.getName().startsWith("java.time.")) {
      return "a time such as 2026-08-03T15:40:00Z";
    }
    if (Map.class.isAssignableFrom(type)) {
      return "a map";
    }
    return "an object";
  }

  private static String quoted(Object value) {
    return value instanceof String s ? "'" + s + "'" : String.valueOf(value);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
