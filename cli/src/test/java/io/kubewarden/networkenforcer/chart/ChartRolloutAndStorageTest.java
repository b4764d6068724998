package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.mounts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What only a cluster would show: where the standalone pod keeps its data, how the ingest rolls
 * out.
 */
class ChartRolloutAndStorageTest {

  @Test
  void standaloneClaimsAVolumeOfTheDefaultStorageClassByDefault() {
    JsonNode standalone = HelmChart.render(values()).get("StatefulSet", FULLNAME + "-standalone");
    JsonNode claims = standalone.path("spec").path("volumeClaimTemplates");
    assertThat(claims).hasSize(1);
    assertThat(claims.get(0).path("metadata").path("name").asText()).isEqualTo("data");
    // No storageClassName at all: the cluster's default class binds it (an empty string would ask
    // for none).
    assertThat(claims.get(0).path("spec").has("storageClassName")).isFalse();
    assertThat(
            claims.get(0).path("spec").path("resources").path("requests").path("storage").asText())
        .isEqualTo("10Gi");
    assertThat(Manifests.volume(standalone, "data")).isEmpty();

    JsonNode named =
        HelmChart.render(values("standalone.persistence.storageClassName", "local-path"))
            .get("StatefulSet", FULLNAME + "-standalone");
    assertThat(
            named
                .path("spec")
                .path("volumeClaimTemplates")
                .get(0)
                .path("spec")
                .path("storageClassName")
                .asText())
        .isEqualTo("local-path");
  }

  @Test
  void withoutPersistenceTheStandaloneDataIsAnEmptyDirAndNoClaimIsLeftPending() {
    JsonNode standalone =
        HelmChart.render(values("standalone.persistence.enabled", "false"))
            .get("StatefulSet", FULLNAME + "-standalone");
    assertThat(standalone.path("spec").has("volumeClaimTemplates")).isFalse();
    assertThat(Manifests.volume(standalone, "data").orElseThrow().has("emptyDir")).isTrue();
    assertThat(mounts(container(standalone, "network-enforcer")))
        .containsEntry("data", "/var/lib/network-enforcer");
  }

  @ParameterizedTest
  @ValueSource(strings = {"cilium", "calico"})
  void aStreamReadingIngestIsReplacedNotRolledSoTwoNeverReadTheSameStream(String provider) {
    JsonNode ingest =
        HelmChart.render(distributed(provider)).get("Deployment", FULLNAME + "-ingest");
    assertThat(ingest.path("spec").path("replicas").asInt()).isEqualTo(1);
    assertThat(ingest.path("spec").path("strategy").path("type").asText()).isEqualTo("Recreate");
    assertThat(ingest.path("spec").path("strategy").has("rollingUpdate")).isFalse();
  }

  @Test
  void theIstioReceiversRollAsUsualBehindTheirService() {
    // fluent-bit pushes to a Service: two receivers, a rolling update keeps one answering.
    JsonNode ingest =
        HelmChart.render(distributed("istio")).get("Deployment", FULLNAME + "-ingest");
    assertThat(ingest.path("spec").path("replicas").asInt()).isEqualTo(2);
    assertThat(ingest.path("spec").has("strategy")).isFalse();
  }

  private static Map<String, String> distributed(String provider) {
    return values(
        "mode",
        "distributed",
        "kafka.bootstrapServers",
        "kafka:9092",
        "controller.provider.name",
        provider);
  }
}
