package io.kubewarden.networkenforcer.chart;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real helm binary (built by hack/tools/helm.sh) against charts/network-enforcer. Renders
 * are cached per value set: several tests look at the same manifests.
 */
public final class HelmChart {
  static final String RELEASE = "ne";
  static final String NAMESPACE = "ne-system";
  public static final String FULLNAME = "ne-network-enforcer";

  /** The lowest Kubernetes version the chart supports (Chart.yaml kubeVersion). */
  static final String KUBE_VERSION = "1.30.0";

  private static final Map<Map<String, String>, Result> CACHE = new ConcurrentHashMap<>();

  /** Output of one helm run. */
  record Result(int exitCode, String stdout, String stderr) {
    boolean ok() {
      return exitCode == 0;
    }
  }

  private HelmChart() {}

  static Path helm() {
    String toolsDir = System.getenv("NE_TOOLS_DIR");
    Path dir =
        toolsDir == null || toolsDir.isBlank()
            ? Path.of(System.getProperty("user.home"), ".cache", "network-enforcer", "tools")
            : Path.of(toolsDir);
    Path helm = dir.resolve("bin").resolve("helm");
    if (!Files.isExecutable(helm)) {
      throw new IllegalStateException(
          "helm not found at "
              + helm
              + ": run hack/tools/helm.sh first "
              + "(it builds helm from source into ${NE_TOOLS_DIR:-~/.cache/network-enforcer/tools}/bin)");
    }
    return helm;
  }

  static Path chartDir() {
    // Surefire runs in the module directory (cli/); the chart lives at the repository root.
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path chart = dir.resolve("charts").resolve("network-enforcer");
      if (Files.isRegularFile(chart.resolve("Chart.yaml"))) {
        return chart;
      }
    }
    throw new IllegalStateException(
        "charts/network-enforcer not found above " + Path.of("").toAbsolutePath());
  }

  /** Renders with the given values (helm --set syntax) and fails the test when helm fails. */
  public static Manifests render(Map<String, String> values) {
    Result result = template(values);
    if (!result.ok()) {
      throw new AssertionError("helm template " + values + " failed:\n" + result.stderr());
    }
    return Manifests.parse(result.stdout());
  }

  static Result template(Map<String, String> values) {
    return CACHE.computeIfAbsent(
        Map.copyOf(values),
        v -> {
          List<String> args =
              new ArrayList<>(
                  List.of(
                      "template",
                      RELEASE,
                      chartDir().toString(),
                      "--namespace",
                      NAMESPACE,
                      "--kube-version",
                      KUBE_VERSION));
          addValues(args, values);
          return run(args);
        });
  }

  /**
   * The reference-style values file of the tests (every reference chart key, api.md "Helm values").
   */
  static Path referenceValues() {
    try {
      return Path.of(HelmChart.class.getResource("/chart/reference-values.yaml").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Renders with a values file (-f) and --set values on top. */
  static Result template(Path valuesFile, Map<String, String> values) {
    Map<String, String> key = new HashMap<>(values);
    key.put("<values-file>", valuesFile.toString());
    return CACHE.computeIfAbsent(
        Map.copyOf(key),
        v -> {
          List<String> args =
              new ArrayList<>(
                  List.of(
                      "template",
                      RELEASE,
                      chartDir().toString(),
                      "--namespace",
                      NAMESPACE,
                      "--kube-version",
                      KUBE_VERSION,
                      "-f",
                      valuesFile.toString()));
          addValues(args, values);
          return run(args);
        });
  }

  static Manifests render(Path valuesFile, Map<String, String> values) {
    Result result = template(valuesFile, values);
    if (!result.ok()) {
      throw new AssertionError(
          "helm template -f " + valuesFile + " " + values + " failed:\n" + result.stderr());
    }
    return Manifests.parse(result.stdout());
  }

  static Result lint(boolean strict, Map<String, String> values) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "lint",
                chartDir().toString(),
                "--namespace",
                NAMESPACE,
                "--kube-version",
                KUBE_VERSION));
    if (strict) {
      args.add("--strict");
    }
    addValues(args, values);
    return run(args);
  }

  /** Values as an ordered map, from alternating key, value arguments. */
  public static Map<String, String> values(String... keyValues) {
    if (keyValues.length % 2 != 0) {
      throw new IllegalArgumentException("values come in key, value pairs");
    }
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  private static void addValues(List<String> args, Map<String, String> values) {
    values.forEach(
        (key, value) -> {
          args.add("--set");
          args.add(key + "=" + value);
        });
  }

  private static Result run(List<String> args) {
    return run(args, Map.of());
  }

  /**
   * Runs helm against a cluster (install, upgrade, uninstall) with that kubeconfig; helm's cache,
   * config and data directories live under {@code home}, so nothing of the user's is read or
   * written.
   */
  static Result against(Path kubeconfig, Path home, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--kubeconfig");
    all.add(kubeconfig.toString());
    return run(
        all,
        Map.of(
            "HELM_CACHE_HOME",
            home.resolve("cache").toString(),
            "HELM_CONFIG_HOME",
            home.resolve("config").toString(),
            "HELM_DATA_HOME",
            home.resolve("data").toString()));
  }

  private static Result run(List<String> args, Map<String, String> env) {
    List<String> command = new ArrayList<>();
    command.add(helm().toString());
    command.addAll(args);
    try {
      Path out = Files.createTempFile("helm-out", ".yaml");
      Path err = Files.createTempFile("helm-err", ".txt");
      try {
        ProcessBuilder builder =
            new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
          process.destroyForcibly();
          throw new IllegalStateException("helm did not finish in 2 minutes: " + command);
        }
        return new Result(
            process.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running helm", e);
    }
  }
}
