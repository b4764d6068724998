package io.kubewarden.networkenforcer.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.writer.telemetry.CollectorStrategy;
import io.kubewarden.networkenforcer.writer.telemetry.OtlpProtocol;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WriterConfigTest {
  WriterConfig.Builder valid() {
    return WriterConfig.builder().identity("writer-0").kafka(KafkaSettings.of("localhost:9092"));
  }

  @Test
  void defaultsMatchTheChart() {
    WriterConfig c = valid().build().validate();
    assertThat(c.statusUpdateInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.fieldManager()).isEqualTo("network-enforcer");
    assertThat(c.leaseName()).isEqualTo("network-enforcer-writer");
    assertThat(c.telemetry().strategy()).isEqualTo(CollectorStrategy.none);
    assertThat(c.groupInstanceId()).as("dynamic membership unless a name is given").isNull();
  }

  @Test
  void rejectsWhatCannotWork() {
    assertThatThrownBy(() -> valid().namespace("Bad_NS").build().validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("namespace");
    assertThatThrownBy(() -> valid().identity(" ").build().validate())
        .hasMessageContaining("identity");
    assertThatThrownBy(() -> valid().statusUpdateInterval(Duration.ZERO).build().validate())
        .hasMessageContaining("wnpStatusUpdateInterval");
    assertThatThrownBy(() -> valid().renewDeadline(Duration.ofSeconds(20)).build().validate())
        .hasMessageContaining("renew deadline");
    assertThatThrownBy(() -> valid().kafka(null).build().validate()).hasMessageContaining("kafka");
    assertThatThrownBy(() -> valid().groupInstanceId(" ").build().validate())
        .hasMessageContaining("group instance id");
    assertThatThrownBy(
            () ->
                valid()
                    .telemetry(
                        new TelemetrySettings(
                            CollectorStrategy.external, null, OtlpProtocol.grpc, null, null, null))
                    .build()
                    .validate())
        .hasMessageContaining("needs an endpoint");
    assertThatThrownBy(
            () ->
                valid()
                    .telemetry(
                        new TelemetrySettings(
                            CollectorStrategy.external,
                            "https://collector:4317",
                            OtlpProtocol.grpc,
                            null,
                            Path.of("/tmp/cert.pem"),
                            null))
                    .build()
                    .validate())
        .hasMessageContaining("both a client certificate");
    assertThatThrownBy(() -> CollectorStrategy.parse("bundled"))
        .hasMessageContaining("default, external or none");
  }

  @Test
  void defaultStrategyPointsAtTheBundledCollector() {
    TelemetrySettings t =
        new TelemetrySettings(
                CollectorStrategy.parse("default"),
                null,
                OtlpProtocol.parse("grpc"),
                null,
                null,
                null)
            .validate();
    assertThat(t.effectiveEndpoint("ne"))
        .isEqualTo("https://network-enforcer-otel-collector.ne.svc.cluster.local:4317");
  }
}
