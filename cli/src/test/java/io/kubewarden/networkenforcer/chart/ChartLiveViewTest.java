package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code writer.liveView}: off by default (NE_LIVE_VIEW false, no Service); when enabled the writer
 * (or the standalone pod) gets NE_LIVE_VIEW true and a Service of the chosen type and port reaches
 * its management port, selecting exactly its pods.
 */
class ChartLiveViewTest {
  private static final String SERVICE = FULLNAME + "-live-view";

  private static Map<String, String> distributed(String... more) {
    Map<String, String> v =
        values(
            "mode",
            "distributed",
            "kafka.bootstrapServers",
            Combination.BOOTSTRAP,
            "controller.provider.name",
            "calico");
    v.putAll(values(more));
    return v;
  }

  @Test
  void offByDefault() {
    Manifests m = HelmChart.render(distributed());
    assertThat(env(container(m.get("Deployment", FULLNAME + "-writer"), "writer")))
        .containsEntry("NE_LIVE_VIEW", "false");
    assertThat(m.find("Service", SERVICE)).isEmpty();
  }

  @Test
  void enabledOnTheWriterWithAServiceToItsManagementPort() {
    Manifests m =
        HelmChart.render(
            distributed(
                "writer.liveView.enabled",
                "true",
                "writer.liveView.service.type",
                "NodePort",
                "writer.liveView.service.port",
                "8443"));
    JsonNode writer = m.get("Deployment", FULLNAME + "-writer");
    assertThat(env(container(writer, "writer"))).containsEntry("NE_LIVE_VIEW", "true");
    // Only the writer gets it: the other components have no live view.
    for (JsonNode other : m.workloads()) {
      if (other != writer) {
        elements(other.path("spec").path("template").path("spec").path("containers"))
            .forEach(c -> assertThat(env(c)).doesNotContainKey("NE_LIVE_VIEW"));
      }
    }
    JsonNode service = m.get("Service", SERVICE);
    assertThat(service.path("spec").path("type").asText()).isEqualTo("NodePort");
    assertThat(service.path("spec").path("selector"))
        .isEqualTo(writer.path("spec").path("selector").path("matchLabels"));
    JsonNode port = service.path("spec").path("ports").get(0);
    assertThat(port.path("port").asInt()).isEqualTo(8443);
    assertThat(port.path("targetPort").asText()).isEqualTo("management");
    assertThat(elements(container(writer, "writer").path("ports")))
        .anySatisfy(p -> assertThat(p.path("name").asText()).isEqualTo("management"));
  }

  @Test
  void enabledInStandaloneOnTheOnePod() {
    Manifests m =
        HelmChart.render(
            values(
                "mode",
                "standalone",
                "controller.provider.name",
                "calico",
                "writer.liveView.enabled",
                "true"));
    JsonNode standalone = m.get("StatefulSet", FULLNAME + "-standalone");
    assertThat(env(container(standalone, "network-enforcer")))
        .containsEntry("NE_LIVE_VIEW", "true");
    JsonNode service = m.get("Service", SERVICE);
    assertThat(service.path("spec").path("type").asText()).isEqualTo("ClusterIP");
    assertThat(service.path("spec").path("selector"))
        .isEqualTo(standalone.path("spec").path("selector").path("matchLabels"));
    assertThat(service.path("spec").path("ports").get(0).path("port").asInt()).isEqualTo(8080);
  }

  @Test
  void aServiceTypeTheSchemaDoesNotKnowIsRefused() {
    HelmChart.Result r =
        HelmChart.template(
            distributed(
                "writer.liveView.enabled", "true", "writer.liveView.service.type", "ExternalName"));
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.stderr()).contains("/writer/liveView/service/type");
  }
}
