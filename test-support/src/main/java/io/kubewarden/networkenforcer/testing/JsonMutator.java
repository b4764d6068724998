package io.kubewarden.networkenforcer.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Structure-aware mutations of a valid JSON record, for the seeded fuzzers: one field removed or
 * set to a value the writer of the record would never put there (null, empty, out of range, the
 * wrong type, a date at the edge of time), or the bytes cut or flipped. Each mutation says which
 * field it touched, so a fuzzer can check that a refusal names it.
 */
public final class JsonMutator {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final List<JsonNode> ODD_VALUES =
      List.of(
          F.nullNode(),
          F.textNode(""),
          F.textNode(" "),
          F.numberNode(-1),
          F.numberNode(0),
          F.numberNode(65_536),
          F.numberNode(70_000),
          F.numberNode(Integer.MIN_VALUE),
          F.numberNode(Long.MAX_VALUE),
          F.numberNode(Long.MIN_VALUE),
          F.numberNode(1e300),
          F.textNode("9999-12-31T23:59:59Z"),
          F.textNode("+1000000000-12-31T23:59:59Z"),
          F.textNode("-1000000000-01-01T00:00:00Z"),
          F.textNode("1970-01-01T00:00:00Z"),
          F.numberNode(-62_135_596_800L),
          F.numberNode(9e18),
          F.textNode("x".repeat(300)),
          F.textNode("Bogus"),
          F.textNode("ICMP"),
          F.textNode("a/b/c/d/e"),
          F.textNode("UPPER_case"),
          F.booleanNode(true),
          F.arrayNode(),
          F.objectNode());

  /**
   * A mutated record: its bytes, and the field path it touched (empty for byte-level mutations).
   */
  /**
   * @param tree the mutated record (null after a byte-level mutation)
   * @param path the field touched, by name or array index (empty after a byte-level mutation)
   */
  public record Mutation(JsonNode tree, byte[] bytes, List<String> path, String what) {}

  private JsonMutator() {}

  /** One mutation of a copy of {@code valid}, the tree of a record that reads. */
  public static Mutation mutate(Random random, JsonNode valid) {
    JsonNode tree = valid.deepCopy();
    int kind = random.nextInt(10);
    if (kind == 0) {
      return bytesMutation(random, write(tree));
    }
    List<List<String>> paths = new ArrayList<>();
    collect(tree, new ArrayList<>(), paths);
    if (paths.isEmpty()) {
      return new Mutation(tree, write(tree), List.of(), "unchanged");
    }
    List<String> path = paths.get(random.nextInt(paths.size()));
    JsonNode parent = at(tree, path.subList(0, path.size() - 1));
    String last = path.get(path.size() - 1);
    String what;
    if (kind <= 3 && parent instanceof ObjectNode o) {
      o.remove(last);
      what = "removed " + String.join(".", path);
    } else {
      JsonNode value = ODD_VALUES.get(random.nextInt(ODD_VALUES.size()));
      set(parent, last, value);
      what = "set " + String.join(".", path) + " to " + abbreviate(value.toString());
    }
    return new Mutation(tree, write(tree), path, what);
  }

  private static Mutation bytesMutation(Random random, byte[] bytes) {
    byte[] out;
    String what;
    if (random.nextBoolean() && bytes.length > 1) {
      int cut = random.nextInt(bytes.length);
      out = java.util.Arrays.copyOf(bytes, cut);
      what = "cut at byte " + cut;
    } else {
      out = bytes.clone();
      int at = random.nextInt(out.length);
      out[at] ^= (byte) (1 << random.nextInt(8));
      what = "flipped a bit of byte " + at;
    }
    return new Mutation(null, out, List.of(), what);
  }

  private static void collect(JsonNode node, List<String> prefix, List<List<String>> into) {
    if (node.isObject()) {
      node.fieldNames()
          .forEachRemaining(
              name -> {
                List<String> p = new ArrayList<>(prefix);
                p.add(name);
                into.add(p);
                collect(node.get(name), p, into);
              });
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        List<String> p = new ArrayList<>(prefix);
        p.add(Integer.toString(i));
        into.add(p);
        collect(node.get(i), p, into);
      }
    }
  }

  private static JsonNode at(JsonNode root, List<String> path) {
    JsonNode n = root;
    for (String step : path) {
      n = n.isArray() ? n.get(Integer.parseInt(step)) : n.get(step);
    }
    return n;
  }

  private static void set(JsonNode parent, String name, JsonNode value) {
    if (parent instanceof ObjectNode o) {
      o.set(name, value);
    } else if (parent instanceof ArrayNode a) {
      a.set(Integer.parseInt(name), value);
    }
  }

  private static byte[] write(JsonNode tree) {
    try {
      return MAPPER.writeValueAsBytes(tree);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code s}, cut to 60 characters for a log line. */
  public static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 60) + "...";
  }
}
