package io.kubewarden.networkenforcer.cli.config;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where an option gets its value when it is not given as a flag: first the environment ({@code
 * --kafka-bootstrap-servers} reads {@code NE_KAFKA_BOOTSTRAP_SERVERS}), then the config file
 * ({@code kafka-bootstrap-servers: ...} in YAML or JSON, named by {@code --config} or {@code
 * NE_CONFIG}), then the option's built-in default.
 */
public final class EnvironmentDefaults implements IDefaultValueProvider {
  public static final String ENV_PREFIX = "NE_";
  private final Map<String, String> env;
  private final Map<String, String> file;
  private final String fileName;

  public EnvironmentDefaults(Map<String, String> env, Map<String, String> file) {
    this(env, file, "the config file");
  }

  /**
   * @param fileName the config file, for messages
   */
  public EnvironmentDefaults(Map<String, String> env, Map<String, String> file, String fileName) {
    this.env = Map.copyOf(env);
    this.file = Map.copyOf(file);
    this.fileName = fileName;
  }

  /**
   * Refuses a key of the config file that is no option of the command about to run: a misspelled
   * key would otherwise be ignored without a word, and the default used.
   */
  public void checkFileKeys(CommandSpec command) {
    Set<String> known = new TreeSet<>();
    for (OptionSpec option : command.options()) {
      for (String name : option.names()) {
        if (name.startsWith("--")) {
          known.add(name.substring(2));
        }
      }
    }
    for (String key : new TreeSet<>(file.keySet())) {
      if (!known.contains(key)) {
        String closest = closest(key, known);
        throw new ConfigException(
            fileName
                + ": '"
                + key
                + "' is not an option of "
                + command.qualifiedName()
                + (closest == null ? "" : " (did you mean '" + closest + "'?)")
                + "; remove or fix the key ("
                + command.qualifiedName()
                + " --help lists the options)");
      }
    }
  }

  /** The known name at the smallest edit distance, if it is close enough to be a typo. */
  private static String closest(String key, Set<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(key, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return bestDistance <= Math.max(2, key.length() / 4) ? best : null;
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /**
   * Reads the environment and the config file named by {@code --config FILE} / {@code NE_CONFIG}.
   */
  public static EnvironmentDefaults fromProcess(String[] args) {
    Map<String, String> env = System.getenv();
    String configFile = env.get(ENV_PREFIX + "CONFIG");
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config") && i + 1 < args.length) {
        configFile = args[i + 1];
      } else if (args[i].startsWith("--config=")) {
        configFile = args[i].substring("--config=".length());
      }
    }
    return configFile == null
        ? new EnvironmentDefaults(env, Map.of())
        : new EnvironmentDefaults(env, readFile(Path.of(configFile)), "config file " + configFile);
  }

  /** The environment variable an option reads: {@code NE_} + the long name in upper snake case. */
  public static String envName(String longOption) {
    return ENV_PREFIX
        + longOption.replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec option)) {
      return null;
    }
    String longName = option.longestName();
    if (!longName.startsWith("--")) {
      return null;
    }
    String fromEnv = env.get(envName(longName));
    if (fromEnv != null && !fromEnv.isEmpty()) {
      return fromEnv;
    }
    String fromFile = file.get(longName.substring(2));
    return fromFile != null ? fromFile : arg.defaultValue();
  }

  public static Map<String, String> readFile(Path path) {
    if (!Files.isRegularFile(path)) {
      throw new ConfigException(
          "config file " + path + " does not exist; fix --config or NE_CONFIG");
    }
    try {
      Map<?, ?> raw = Json.yaml().readValue(path.toFile(), Map.class);
      Map<String, String> flat = new HashMap<>();
      if (raw != null) {
        raw.forEach(
            (k, v) ->
                flat.put(
                    String.valueOf(k),
                    v instanceof Iterable<?> list
                        ? String.join(",", toStrings(list))
                        : String.valueOf(v)));
      }
      return flat;
    } catch (IOException e) {
      throw new ConfigException(
          "config file "
              + path
              + " is not valid YAML: "
              + e.getMessage()
              + "; write one option per line, for example 'kafka-bootstrap-servers: kafka:9092'");
    }
  }

  private static Iterable<String> toStrings(Iterable<?> list) {
    List<String> out = new ArrayList<>();
    list.forEach(o -> out.add(String.valueOf(o)));
    return out;
  }
}
