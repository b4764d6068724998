package io.kubewarden.networkenforcer.ingest.ztunnel;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.ingest.ParserFuzzing;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceResponse;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;

/** Hands a decoded OTLP export to the ingestor the receivers use and checks it answered. */
final class OtlpBodies {
  private OtlpBodies() {}

  static void ingest(ExportLogsServiceRequest request) {
    OtlpLogIngestor ingestor =
        new OtlpLogIngestor(
            new ZtunnelLogParser(ParserFuzzing.resolver(), "cluster.local", ParserFuzzing.CLOCK),
            new FlowIntake(
                List.of(record -> {}),
                ParserFuzzing.failOnUncheckedCause(),
                new IngestMetrics(new SimpleMeterRegistry())));
    ExportLogsServiceResponse response = ingestor.export(request);
    assertThat(response.getPartialSuccess().getRejectedLogRecords()).isZero();
  }
}
