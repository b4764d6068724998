package io.kubewarden.networkenforcer.pipeline;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;

/** The writer the in-process pipeline tests run: the chart's release, a lease that moves fast. */
final class TestWriters {
  private TestWriters() {}

  /**
   * A started writer of that release's lease: 4 s lease, 3 s renew deadline, 300 ms retries (a
   * failover in seconds), status every 500 ms, telemetry off.
   */
  static WriterService start(
      KubernetesClient client, KafkaSettings kafka, String release, String identity) {
    WriterConfig config =
        WriterConfig.builder()
            .namespace(ChartedApiServer.RELEASE_NAMESPACE)
            .leaseName(ChartedApiServer.leaseName(release))
            .identity(identity)
            .leaseDuration(Duration.ofSeconds(4))
            .renewDeadline(Duration.ofSeconds(3))
            .retryPeriod(Duration.ofMillis(300))
            .statusUpdateInterval(Duration.ofMillis(500))
            .consumerGroup(kafka.topicPrefix() + "writer")
            .kafka(kafka)
            .build()
            .validate();
    WriterService service =
        new WriterService(
            client,
            config,
            new ServerSideApplyWriter(client, config.fieldManager()),
            TelemetryExport.create(TelemetrySettings.disabled(), config.namespace()),
            new SimpleMeterRegistry(),
            Clock.systemUTC());
    service.start();
    return service;
  }
}
