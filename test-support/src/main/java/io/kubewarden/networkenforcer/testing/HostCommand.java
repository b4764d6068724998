package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A short host command (ip, iptables, ctr, umount) run to completion, its output captured. */
final class HostCommand {

  /** What a command did: its exit code and its output (stdout and stderr together). */
  record Result(List<String> command, int exitCode, String output) {
    boolean ok() {
      return exitCode == 0;
    }

    Result requireOk() {
      if (exitCode != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " exited with " + exitCode + ": " + output.strip());
      }
      return this;
    }
  }

  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  private HostCommand() {}

  static Result run(String... command) {
    return run(List.of(command));
  }

  static Result run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command) + " did not finish within " + TIMEOUT);
      }
      return new Result(
          List.copyOf(command), process.exitValue(), new String(output, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
    }
  }
}
