package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.cli.management.ManagementServer;
import io.kubewarden.networkenforcer.processor.app.StreamProcessorApp;
import io.kubewarden.networkenforcer.processor.progress.Progress;
import java.util.Optional;

/**
 * Puts the processor's catch-up on the management port, for an operator who replays a topic (resets
 * the consumer group) and wants to know when the processor is through with it: JSON with 200 once
 * the processor runs, 503 before it started.
 */
public final class CaughtUpPage {
  public static final String PATH = "/caughtup";
  private static final String JSON = "application/json";

  private CaughtUpPage() {}

  public static void serve(ServiceRunner runner, StreamProcessorApp processor) {
    runner.page(PATH, () -> render(processor.progress()));
  }

  static ManagementServer.Page render(Optional<Progress> progress) {
    return progress
        .map(
            p ->
                new ManagementServer.Page(
                    200,
                    JSON,
                    "{\"caughtUp\":"
                        + p.caughtUp()
                        + ",\"flowsConsumed\":"
                        + p.flowsConsumed()
                        + ",\"flowsPublished\":"
                        + p.flowsPublished()
                        + "}\n"))
        .orElseGet(
            () -> new ManagementServer.Page(503, JSON, "{\"caughtUp\":false,\"started\":false}\n"));
  }
}
