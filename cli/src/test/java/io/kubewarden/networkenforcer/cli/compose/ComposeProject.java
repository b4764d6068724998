package io.kubewarden.networkenforcer.cli.compose;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One {@code docker compose} project: the repository's compose file plus an override, under its own
 * project name, with exactly the variables given (nothing leaks in from the caller's environment
 * but what the docker CLI itself needs).
 */
final class ComposeProject implements AutoCloseable {
  private static final List<String> CLI_ENVIRONMENT =
      List.of(
          "PATH",
          "HOME",
          "DOCKER_HOST",
          "DOCKER_CONFIG",
          "DOCKER_CERT_PATH",
          "DOCKER_TLS_VERIFY",
          "TMPDIR");

  private final String name;
  private final List<Path> files;
  private final Map<String, String> variables;
  private final Thread shutdownHook = new Thread(this::close, "docker-compose-down");
  private boolean up;

  ComposeProject(String name, List<Path> files, Map<String, String> variables) {
    this.name = name;
    this.files = List.copyOf(files);
    this.variables = Map.copyOf(variables);
  }

  String name() {
    return name;
  }

  /**
   * Creates and starts every service in the background. Until {@link #close()}, a JVM shutdown hook
   * takes the project down if the test JVM is stopped (a build timeout, Ctrl-C).
   */
  synchronized void up() {
    up = true;
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    run(Duration.ofMinutes(5), "up", "--detach", "--no-build", "--pull", "never");
  }

  /** The host port that publishes that container port of the service. */
  int publishedPort(String service, int containerPort) {
    String answer =
        run(Duration.ofSeconds(30), "port", service, String.valueOf(containerPort)).trim();
    return Integer.parseInt(answer.substring(answer.lastIndexOf(':') + 1));
  }

  /** The address the service's port is published on (the part before the port). */
  String publishedAddress(String service, int containerPort) {
    String answer =
        run(Duration.ofSeconds(30), "port", service, String.valueOf(containerPort)).trim();
    return answer.substring(0, answer.lastIndexOf(':'));
  }

  String logs() {
    return run(Duration.ofMinutes(1), "logs", "--no-color", "--timestamps");
  }

  /** The containers of the project, running or not. */
  List<String> containers() {
    String out = run(Duration.ofSeconds(30), "ps", "--all", "--quiet").trim();
    return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
  }

  /** Stops and removes the containers, networks and volumes of the project. */
  @Override
  public synchronized void close() {
    if (up) {
      run(Duration.ofMinutes(3), "down", "--volumes", "--remove-orphans", "--timeout", "10");
      up = false;
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down: this is the hook running
      }
    }
  }

  private String run(Duration timeout, String... args) {
    List<String> command = new ArrayList<>(List.of("docker", "compose", "--project-name", name));
    for (Path file : files) {
      command.add("--file");
      command.add(file.toString());
    }
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    Map<String, String> env = builder.environment();
    Map<String, String> inherited = new HashMap<>();
    CLI_ENVIRONMENT.forEach(
        key -> {
          if (env.containsKey(key)) {
            inherited.put(key, env.get(key));
          }
        });
    env.clear();
    env.putAll(inherited);
    env.putAll(variables);
    Path output = null;
    try {
      // Into a file: a pipe that nobody reads could block the command before the deadline.
      output = Files.createTempFile("docker-compose-", ".out");
      Process process = builder.redirectOutput(output.toFile()).start();
      process.getOutputStream().close();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command)
                + " did not finish within "
                + timeout
                + ":\n"
                + Files.readString(output));
      }
      String text = Files.readString(output, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " failed with exit code "
                + process.exitValue()
                + ":\n"
                + text);
      }
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot run "
              + String.join(" ", command)
              + " (hack/tools/docker.sh installs docker and the compose plugin)",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
    } finally {
      deleteQuietly(output);
    }
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // a leftover temporary file is harmless
      }
    }
  }
}
