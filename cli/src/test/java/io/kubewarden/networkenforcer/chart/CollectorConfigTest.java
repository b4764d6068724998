package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.mounts;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.json.Json;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The bundled OpenTelemetry collector (telemetry.collectorStrategy=default). */
class CollectorConfigTest {
  private static final String NAME = FULLNAME + "-otel-collector";
  private static Manifests manifests;
  private static JsonNode config;

  @BeforeAll
  static void render() throws Exception {
    manifests = HelmChart.render(values("telemetry.collectorStrategy", "default"));
    config =
        Json.yaml()
            .readTree(manifests.get("ConfigMap", NAME).path("data").path("config.yaml").asText());
  }

  @Test
  void receivesOtlpOverTlsWithACertificateOfItsService() {
    JsonNode grpc = config.path("receivers").path("otlp").path("protocols").path("grpc");
    assertThat(grpc.path("endpoint").asText()).isEqualTo("0.0.0.0:4317");
    assertThat(grpc.path("tls").path("cert_file").asText())
        .isEqualTo("/etc/otel-collector/certs/tls.crt");
    assertThat(grpc.path("tls").path("key_file").asText())
        .isEqualTo("/etc/otel-collector/certs/tls.key");
    JsonNode deployment = manifests.get("Deployment", NAME);
    assertThat(mounts(container(deployment, "otel-collector")))
        .containsEntry("certs", "/etc/otel-collector/certs")
        .containsEntry("config", "/etc/otel-collector");
    JsonNode attributes =
        Manifests.volume(deployment, "certs").orElseThrow().path("csi").path("volumeAttributes");
    // The writer dials https://<service>.<namespace>.svc.cluster.local:4317 and checks that name.
    assertThat(attributes.path("csi.cert-manager.io/dns-names").asText())
        .contains(NAME + "." + HelmChart.NAMESPACE + ".svc.cluster.local");
    assertThat(attributes.path("csi.cert-manager.io/key-usages").asText()).contains("server auth");
    assertThat(texts(container(deployment, "otel-collector").path("args")))
        .containsExactly("--config=/etc/otel-collector/config.yaml");
  }

  @Test
  void countsObservedViolationsWithTheDimensionsOfTheContract() {
    JsonNode metric =
        config.path("connectors").path("count").path("logs").path("network_enforcer_policy_denies");
    assertThat(metric.isMissingNode()).isFalse();
    // api.md: kind and identity stay log-only.
    assertThat(elements(metric.path("attributes")))
        .extracting(a -> a.path("key").asText())
        .containsExactly(
            "enforcement.provider",
            "action",
            "network.transport",
            "source.workload.namespace",
            "source.workload.name",
            "destination.workload.namespace",
            "destination.workload.name",
            "destination.port",
            "policy.ref.namespace",
            "policy.ref.name");
    assertThat(texts(metric.path("conditions")))
        .containsExactly("attributes[\"enforcement.provider\"] != nil");
  }

  @Test
  void pipelinesPrintEventsAndExportTheCounterToPrometheus() {
    JsonNode pipelines = config.path("service").path("pipelines");
    assertThat(texts(pipelines.path("logs").path("receivers"))).containsExactly("otlp");
    assertThat(texts(pipelines.path("logs").path("exporters")))
        .containsExactlyInAnyOrder("debug", "count");
    assertThat(texts(pipelines.path("metrics").path("receivers"))).containsExactly("count");
    assertThat(texts(pipelines.path("metrics").path("processors")))
        .containsExactly("deltatocumulative");
    assertThat(texts(pipelines.path("metrics").path("exporters"))).containsExactly("prometheus");
    // Every component a pipeline names is defined.
    for (String kind : new String[] {"receivers", "processors", "exporters"}) {
      pipelines.forEach(
          p ->
              texts(p.path(kind))
                  .forEach(
                      name ->
                          assertThat(
                                  config.path(kind).has(name)
                                      || config.path("connectors").has(name))
                              .as(kind + " " + name)
                              .isTrue()));
    }
    String prometheus = config.path("exporters").path("prometheus").path("endpoint").asText();
    JsonNode service = manifests.get("Service", NAME);
    assertThat(elements(service.path("spec").path("ports")))
        .anyMatch(
            p ->
                p.path("name").asText().equals("metrics")
                    && prometheus.endsWith(":" + p.path("port").asText()));
  }

  @Test
  void configChangesRollThePod() {
    String before =
        manifests
            .get("Deployment", NAME)
            .path("spec")
            .path("template")
            .path("metadata")
            .path("annotations")
            .path("checksum/config")
            .asText();
    String after =
        HelmChart.render(values("telemetry.defaultCollector.prometheusPort", "9999"))
            .get("Deployment", NAME)
            .path("spec")
            .path("template")
            .path("metadata")
            .path("annotations")
            .path("checksum/config")
            .asText();
    assertThat(before).isNotEmpty().isNotEqualTo(after);
  }
}
