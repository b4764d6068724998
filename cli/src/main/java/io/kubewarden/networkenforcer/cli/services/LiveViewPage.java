package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.cli.management.ManagementServer;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.view.LiveView;
import java.time.Clock;

/**
 * Puts the writer's live view on the management port when {@code --live-view} (NE_LIVE_VIEW) is on.
 */
public final class LiveViewPage {
  private LiveViewPage() {}

  public static void serve(ServiceRunner runner, WriterService writer, WriterConfig config) {
    if (!config.liveView()) {
      return;
    }
    LiveView view =
        new LiveView(
            writer::cache,
            config.identity(),
            config.namespace(),
            config.leaseName(),
            Clock.systemUTC());
    runner.page(
        LiveView.PATH,
        () -> {
          LiveView.Page p = view.render();
          return new ManagementServer.Page(p.status(), p.contentType(), p.body());
        });
  }
}
