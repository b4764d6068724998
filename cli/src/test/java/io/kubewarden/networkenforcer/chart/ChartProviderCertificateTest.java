package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static io.kubewarden.networkenforcer.chart.Manifests.mounts;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static io.kubewarden.networkenforcer.chart.Manifests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Own identities (issue 35, goal 5), as rendered: with {@code tls.mode=certificate} cert-manager
 * issues ingest a client certificate of its own from the named issuer, and ingest (or standalone)
 * mounts it instead of the data plane's Secret, for Cilium and Calico in both modes; the defaults
 * still borrow the provider's Secret; the mode needs an issuer. {@link
 * ChartProviderCertificateHandshakeTest} runs it on a real API server and through real handshakes.
 */
class ChartProviderCertificateTest {
  static final String ISSUER = "hubble-ca";
  private static final String POD_CERT_DIR = "/etc/provider/certs";

  /** Certificate mode of that provider with {@link #ISSUER}, a ClusterIssuer. */
  static Map<String, String> certificateMode(String provider, String mode) {
    Map<String, String> values =
        values(
            "controller.provider.name",
            provider,
            "controller.provider." + provider + ".tls.mode",
            "certificate",
            "controller.provider." + provider + ".tls.issuerRef.name",
            ISSUER,
            "controller.provider." + provider + ".tls.issuerRef.kind",
            "ClusterIssuer",
            "mode",
            mode);
    if (mode.equals("distributed")) {
      values.put("kafka.bootstrapServers", "kafka:9093");
    }
    return values;
  }

  @Test
  void ingestMountsItsOwnCertificateFromTheNamedIssuerInsteadOfTheBorrowedSecret() {
    int checked = 0;
    for (String provider : List.of("cilium", "calico")) {
      for (String mode : List.of("standalone", "distributed")) {
        String component = mode.equals("distributed") ? "ingest" : "standalone";
        Manifests m = HelmChart.render(certificateMode(provider, mode));
        String name = FULLNAME + "-" + provider + "-client";
        JsonNode spec = m.get("Certificate", name).path("spec");
        assertThat(spec.path("issuerRef").path("name").asText()).isEqualTo(ISSUER);
        assertThat(spec.path("issuerRef").path("kind").asText()).isEqualTo("ClusterIssuer");
        assertThat(spec.path("issuerRef").path("group").asText()).isEqualTo("cert-manager.io");
        assertThat(texts(spec.path("usages"))).contains("client auth");
        // RSA with cert-manager's default encoding (PKCS#1): no encoding is asked for.
        assertThat(spec.path("privateKey").path("algorithm").asText()).isEqualTo("RSA");
        assertThat(spec.path("privateKey").has("encoding")).isFalse();
        assertThat(spec.path("secretName").asText()).isEqualTo(name);

        String kind = component.equals("ingest") ? "Deployment" : "StatefulSet";
        JsonNode workload = m.get(kind, FULLNAME + "-" + component);
        // The Secret carries the reading pod's selector labels: the release's label query finds it
        // after an uninstall, when cert-manager keeps it.
        assertThat(spec.path("secretTemplate").path("labels"))
            .isEqualTo(workload.path("spec").path("selector").path("matchLabels"));
        assertThat(volume(workload, "provider-certs").orElseThrow().path("secret"))
            .hasToString("{\"secretName\":\"" + name + "\"}");
        JsonNode container =
            container(workload, component.equals("ingest") ? "ingest" : "network-enforcer");
        assertThat(mounts(container)).containsEntry("provider-certs", POD_CERT_DIR);
        Map<String, String> env = env(container);
        assertThat(env)
            .containsEntry("NE_PROVIDER_TLS_CERT_DIR", POD_CERT_DIR)
            .containsEntry("NE_PROVIDER_TLS_MODE", "issuer")
            .doesNotContainKeys("NE_PROVIDER_TLS_SECRET_NAME", "NE_PROVIDER_TLS_CA_CONFIGMAP");
        // Nothing of the provider's namespace is read any more.
        assertThat(m.find("Role", FULLNAME + "-provider-tls")).isEmpty();
        checked++;
      }
    }
    assertThat(checked).isEqualTo(4);
  }

  @Test
  void theDefaultsStillBorrowTheProvidersSecret() {
    for (String provider : List.of("cilium", "calico")) {
      Manifests m = HelmChart.render(values("controller.provider.name", provider));
      assertThat(m.find("Certificate", FULLNAME + "-" + provider + "-client")).isEmpty();
      assertThat(env(container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer")))
          .containsEntry(
              "NE_PROVIDER_TLS_SECRET_NAME",
              provider.equals("cilium") ? "hubble-relay-client-certs" : "goldmane-key-pair");
      assertThat(m.find("Role", FULLNAME + "-provider-tls")).isPresent();
    }
  }

  @Test
  void certificateModeNeedsAnIssuerTheProviderTrusts() {
    HelmChart.Result noIssuer =
        HelmChart.template(
            values(
                "controller.provider.name",
                "calico",
                "controller.provider.calico.tls.mode",
                "certificate"));
    assertThat(noIssuer.ok()).isFalse();
    assertThat(noIssuer.stderr())
        .contains(
            "controller.provider.calico.tls.issuerRef.name is required when"
                + " controller.provider.calico.tls.mode=certificate")
        .contains("the chart's own CA is not one of them");
    // Istio's receiver and fluent-bit already get certificates of their own (tls.mode issuer).
    HelmChart.Result istio =
        HelmChart.template(
            values(
                "controller.provider.istio.tls.mode",
                "certificate",
                "controller.provider.istio.tls.issuerRef.name",
                ISSUER));
    assertThat(istio.ok()).isFalse();
    assertThat(istio.stderr()).contains("/controller/provider/istio/tls/mode");
  }
}
