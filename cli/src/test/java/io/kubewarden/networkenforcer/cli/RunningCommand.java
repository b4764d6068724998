package io.kubewarden.networkenforcer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A service command ({@code ingest}, {@code processor}, {@code writer}) running in-process through
 * the command line, as the image starts it, until {@link #close()}: then it must exit 0. Several
 * may run side by side; each is told apart by its own {@link ServiceRunner}.
 */
public final class RunningCommand implements AutoCloseable {
  private static final Duration WAIT = Duration.ofMinutes(2);

  private final String command;
  private final CompletableFuture<CliRun> run;
  private final ServiceRunner runner;

  private RunningCommand(String command, CompletableFuture<CliRun> run, ServiceRunner runner) {
    this.command = command;
    this.run = run;
    this.runner = runner;
  }

  /**
   * Starts {@code command} with {@code env} and waits until its {@code /readyz} names {@code
   * readyLine} (e.g. {@code kafka-streams ok}).
   */
  public static synchronized RunningCommand start(
      Map<String, String> env, String command, String readyLine) {
    Set<ServiceRunner> before = ServiceRunner.active();
    CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.run(env, command));
    await(command + " serving")
        .atMost(WAIT)
        .until(() -> run.isDone() || !newRunners(before).isEmpty());
    assertThat(run.isDone()).as(() -> command + " ended early: " + run.join().err()).isFalse();
    RunningCommand running = new RunningCommand(command, run, newRunners(before).iterator().next());
    await(command + " ready")
        .atMost(WAIT)
        .until(() -> running.probe("/readyz").body(), body -> body.contains(readyLine));
    return running;
  }

  private static Set<ServiceRunner> newRunners(Set<ServiceRunner> before) {
    Set<ServiceRunner> now = new HashSet<>(ServiceRunner.active());
    now.removeAll(before);
    return now;
  }

  public int managementPort() {
    return runner.managementPort();
  }

  public int probePort() {
    return runner.probePort();
  }

  /** GET on the open probe port. */
  public HttpResponse<String> probe(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + probePort() + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /** Stops the service and checks that it exited cleanly. */
  @Override
  public void close() throws Exception {
    runner.stop();
    CliRun result = run.get(WAIT.toMinutes(), TimeUnit.MINUTES);
    assertThat(result.exitCode()).as(() -> command + ": " + result.err()).isZero();
  }
}
