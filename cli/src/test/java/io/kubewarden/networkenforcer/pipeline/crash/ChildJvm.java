package io.kubewarden.networkenforcer.pipeline.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A service in a JVM of its own, started from the test classpath, so that killing it is a real
 * crash: {@link #kill()} sends SIGKILL (no shutdown hook, no flush, no close, no transaction commit
 * or abort), as the kernel's OOM killer or a node loss would.
 */
public final class ChildJvm implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;

  private ChildJvm(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Runs {@code mainClass args} with {@code env} added; standard output and error go to {@code
   * logDir/name.log}.
   */
  public static ChildJvm start(
      String name, Path logDir, Map<String, String> env, String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Small and quick to start: six of these share two cores with the API server and the test.
    command.addAll(
        List.of(
            "-Xmx384m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xss512k",
            "-cp",
            System.getProperty("java.class.path"),
            mainClass));
    command.addAll(args);
    try {
      Path log = logDir.resolve(name + ".log");
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().putAll(env);
      return new ChildJvm(name, builder.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** SIGKILL, then waits until the process is gone (its sockets closed by the kernel). */
  public void kill() {
    process.destroyForcibly();
    waitFor(Duration.ofSeconds(30));
  }

  /**
   * SIGTERM, as the kubelet stops a pod, and waits until the process has ended; unlike {@link
   * #close()} it never falls back to SIGKILL, so what the process did on the way out is what it did
   * by itself.
   */
  public void terminate(Duration timeout) {
    process.destroy();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(name + " still runs " + timeout + " after SIGTERM");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The last lines it printed, to say why a wait failed. */
  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private void waitFor(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(name + " still runs after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGTERM and a bounded wait, then SIGKILL: the end of the test, not a fault. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
