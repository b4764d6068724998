package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child process whose output goes to a log file, stopped gracefully (SIGTERM, then SIGKILL) on
 * close. A JVM shutdown hook stops it too, so a crashed test run leaves nothing behind.
 */
final class ManagedProcess implements AutoCloseable {

  private static final int LOG_TAIL_LINES = 40;

  private final String name;
  private final Process process;
  private final Path log;
  private final Thread shutdownHook;

  private ManagedProcess(String name, Process process, Path log, boolean stopOnExit) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.shutdownHook = stopOnExit ? new Thread(this::stop, "stop-" + name) : null;
    if (shutdownHook != null) {
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
  }

  static ManagedProcess start(String name, List<String> command, Path workDir) {
    return start(name, command, workDir, true);
  }

  /**
   * Starts it; without {@code stopOnExit} the owner stops it on JVM exit itself, in its own order
   * (shutdown hooks run concurrently: a cluster must stop its pods before its kubelet).
   */
  static ManagedProcess start(String name, List<String> command, Path workDir, boolean stopOnExit) {
    Path log = workDir.resolve(name + ".log");
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      return new ManagedProcess(name, process, log, stopOnExit);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " (" + command.get(0) + ")", e);
    }
  }

  String name() {
    return name;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  Path log() {
    return log;
  }

  /** Fails with the end of the log when the process has exited. */
  void requireAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          name + " exited with code " + process.exitValue() + "; last log lines:\n" + logTail());
    }
  }

  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join(
          "\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    } catch (IOException e) {
      return "(log " + log + " unreadable: " + e.getMessage() + ")";
    }
  }

  private void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
    if (shutdownHook == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // The hook is running or has run; nothing left to undo.
    }
  }
}
