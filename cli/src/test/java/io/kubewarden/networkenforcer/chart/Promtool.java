package io.kubewarden.networkenforcer.chart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs Prometheus' promtool (built by hack/tools/promtool.sh) in a directory. */
final class Promtool {
  /** Exit code and everything promtool printed. */
  record Result(int exitCode, String output) {}

  private Promtool() {}

  static Path binary() {
    String toolsDir = System.getenv("NE_TOOLS_DIR");
    Path dir =
        toolsDir == null || toolsDir.isBlank()
            ? Path.of(System.getProperty("user.home"), ".cache", "network-enforcer", "tools")
            : Path.of(toolsDir);
    Path promtool = dir.resolve("bin").resolve("promtool");
    if (!Files.isExecutable(promtool)) {
      throw new IllegalStateException(
          "promtool not found at "
              + promtool
              + ": run hack/tools/promtool.sh first "
              + "(it builds promtool from source into ${NE_TOOLS_DIR:-~/.cache/network-enforcer/tools}/bin)");
    }
    return promtool;
  }

  static Result run(Path workDir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile(workDir, "promtool", ".out");
    Process process =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("promtool did not finish in 2 minutes: " + command);
    }
    return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }
}
