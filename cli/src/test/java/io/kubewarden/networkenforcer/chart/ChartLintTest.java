package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** `helm lint --strict` is clean for the defaults and for the richest value sets. */
class ChartLintTest {

  static Stream<Arguments> valueSets() {
    return Stream.of(
        Arguments.of("defaults", values()),
        Arguments.of(
            "distributed cilium, Strimzi, mutual TLS, flow dumper",
            values(
                "mode",
                "distributed",
                "controller.provider.name",
                "cilium",
                "kafka.bootstrapServers",
                "my-cluster-kafka-bootstrap:9093",
                "kafka.strimzi.createUsers",
                "true",
                "kafka.strimzi.createTopics",
                "true",
                "kafka.strimzi.clusterName",
                "my-cluster",
                "controller.flowDumper.enabled",
                "true")),
        Arguments.of(
            "distributed calico issuer, SASL, external collector with mTLS",
            values(
                "mode",
                "distributed",
                "controller.provider.name",
                "calico",
                "controller.provider.calico.tls.mode",
                "issuer",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.authentication",
                "scram-sha-512",
                "kafka.tls.caSecret.name",
                "ca",
                "telemetry.collectorStrategy",
                "external",
                "telemetry.externalCollector.endpoint",
                "https://otel.example:4318",
                "telemetry.externalCollector.protocol",
                "http/protobuf",
                "telemetry.externalCollector.otelCollectorCertificateSecret",
                "ca",
                "telemetry.externalCollector.otelCollectorClientCertificateSecret",
                "client")),
        Arguments.of(
            "node-local cilium with ingest's own certificate (tls.mode certificate)",
            values(
                "mode",
                "distributed",
                "controller.provider.name",
                "cilium",
                "controller.provider.cilium.nodeLocal.enabled",
                "true",
                "controller.provider.cilium.tls.mode",
                "certificate",
                "controller.provider.cilium.tls.issuerRef.name",
                "hubble-ca",
                "controller.provider.cilium.tls.issuerRef.kind",
                "ClusterIssuer",
                "kafka.bootstrapServers",
                "kafka:9093")),
        Arguments.of(
            "istio insecure without collector",
            values(
                "controller.provider.istio.tls.mode",
                "insecure",
                "telemetry.collectorStrategy",
                "none")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void lintIsClean(String description, Map<String, String> values) {
    HelmChart.Result strict = HelmChart.lint(true, values);
    assertThat(strict.ok()).as(strict.stdout() + strict.stderr()).isTrue();
    assertThat(strict.stdout())
        .contains("0 chart(s) failed")
        .doesNotContain("[WARNING]")
        .doesNotContain("[ERROR]");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void rendersWithTheseValues(String description, Map<String, String> values) {
    assertThat(HelmChart.render(values).workloads()).isNotEmpty();
  }
}
