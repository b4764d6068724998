package io.kubewarden.networkenforcer.cli;

import io.kubewarden.networkenforcer.cli.config.EnvironmentDefaults;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/** Runs the command line in-process with a given environment and captures what it prints. */
public record CliRun(int exitCode, String out, String err) {

  public static CliRun run(String... args) {
    return run(Map.of(), args);
  }

  public static CliRun run(Map<String, String> env, String... args) {
    return run(new EnvironmentDefaults(env, Map.of()), args);
  }

  /**
   * With {@code stdin} as the process's standard input for the run (System.in, as the commands read
   * it).
   */
  public static synchronized CliRun runWithStdin(String stdin, String... args) {
    InputStream saved = System.in;
    System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
    try {
      return run(args);
    } finally {
      System.setIn(saved);
    }
  }

  /** With the options of a YAML config file as the last source of defaults. */
  public static CliRun runWithConfigFile(Map<String, String> env, Path configFile, String... args) {
    return run(
        new EnvironmentDefaults(
            env, EnvironmentDefaults.readFile(configFile), "config file " + configFile),
        args);
  }

  private static CliRun run(EnvironmentDefaults defaults, String... args) {
    CommandLine cl = NetworkEnforcerCommand.commandLine(defaults);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }

  /** The repository root (tests run in the cli module directory). */
  public static Path repoRoot() {
    Path cwd = Path.of("").toAbsolutePath();
    return cwd.getFileName().toString().equals("cli") ? cwd.getParent() : cwd;
  }

  public static Path sample(String name) {
    return repoRoot().resolve("samples/basic").resolve(name);
  }
}
