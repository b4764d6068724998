package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart README lists every NE_* variable the chart sets: it is the contract with the
 * `network-enforcer` command, which reads NE_<OPTION> for each --option.
 */
class ChartReadmeTest {

  @Test
  void everyEnvVariableTheChartSetsIsDocumented() throws Exception {
    Set<String> used = new TreeSet<>();
    Stream<Map<String, String>> valueSets =
        Stream.concat(
            Combination.all().stream().filter(Combination::valid).map(Combination::values),
            Stream.of(
                values(
                    "mode",
                    "distributed",
                    "kafka.bootstrapServers",
                    "kafka:9092",
                    "kafka.authentication",
                    "scram-sha-512",
                    "kafka.tls.caSecret.name",
                    "ca",
                    "controller.flowDumper.enabled",
                    "true",
                    "telemetry.collectorStrategy",
                    "external",
                    "telemetry.externalCollector.endpoint",
                    "otel:4317",
                    "telemetry.externalCollector.otelCollectorClientCertificateSecret",
                    "client"),
                values(
                    "controller.provider.name",
                    "cilium",
                    "controller.provider.cilium.policyBackend",
                    "cilium",
                    "controller.provider.cilium.entities",
                    "true")));
    valueSets.forEach(
        values -> {
          for (JsonNode workload : HelmChart.render(values).workloads()) {
            for (JsonNode container :
                Manifests.elements(Manifests.podSpec(workload).path("containers"))) {
              Manifests.env(container).keySet().stream()
                  .filter(k -> k.startsWith("NE_"))
                  .forEach(used::add);
            }
          }
        });
    String readme = Files.readString(HelmChart.chartDir().resolve("README.md"));
    assertThat(used).hasSizeGreaterThan(30);
    List<String> missing =
        used.stream().filter(name -> !readme.contains("`" + name + "`")).toList();
    assertThat(missing)
        .as("NE_* variables missing from charts/network-enforcer/README.md")
        .isEmpty();
  }
}
