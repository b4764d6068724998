package io.kubewarden.networkenforcer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chart's environment variables to IngestConfig. */
class IngestEnvironmentTest {

  @Test
  void ciliumWithAMountedCertDirectoryAndTheRelayServerName() {
    IngestConfig c = IngestEnvironment.config(Map.of("NE_PROVIDER", "cilium",
        "NE_HUBBLE_ENDPOINT", "hubble-relay.kube-system.svc:443", "NE_PROVIDER_TLS_MODE", "issuer",
        "NE_PROVIDER_TLS_CERT_DIR", "/etc/provider/certs", "NE_PROVIDER_TLS_SERVER_NAME", "ui.hubble-relay.cilium.io",
        "NE_FLOW_DUMPER_ENABLED", "true", "NE_FLOW_DUMPER_PORT", "9081", "NE_FLOW_DUMPER_BUFFER_SIZE", "500"));
    assertThat(c.provider()).isEqualTo(Provider.cilium);
    assertThat(c.hubble().tls().mode()).isEqualTo(TlsMode.issuer);
    assertThat(c.hubble().tls().certDir()).isEqualTo(Path.of("/etc/provider/certs"));
    assertThat(c.hubble().tls().serverName()).isEqualTo("ui.hubble-relay.cilium.io");
    assertThat(c.dumper()).isEqualTo(new IngestConfig.Dumper(true, 9081, 500));
  }

  @Test
  void insecureCiliumDefaultsToPort80WithoutServerName() {
    IngestConfig c = IngestEnvironment.config(Map.of("NE_PROVIDER", "cilium", "NE_PROVIDER_TLS_MODE", "insecure"));
    assertThat(c.hubble().target()).isEqualTo("hubble-relay.kube-system.svc:80");
    assertThat(c.hubble().tls().isInsecure()).isTrue();
    assertThat(c.hubble().tls().serverName()).isNull();
  }

  @Test
  void calicoReadsTheSecretAndCaConfigMapThroughTheApiByDefault() {
    IngestConfig c = IngestEnvironment.config(Map.of("NE_PROVIDER", "calico", "NE_INGEST_COMPRESSION", "zstd",
        "NE_INGEST_LINGER", "50ms"));
    assertThat(c.goldmane().tls().secretName()).isEqualTo("goldmane-key-pair");
    assertThat(c.goldmane().tls().caConfigMapName()).isEqualTo("goldmane-ca-bundle");
    assertThat(c.producer().compression()).isEqualTo("zstd");
    assertThat(c.producer().linger()).isEqualTo(Duration.ofMillis(50));
    IngestConfig named = IngestEnvironment.config(Map.of("NE_PROVIDER", "calico",
        "NE_PROVIDER_TLS_SECRET_NAMESPACE", "calico-system", "NE_PROVIDER_TLS_SECRET_NAME", "my-pair",
        "NE_PROVIDER_TLS_CA_CONFIGMAP", "my-ca", "NE_PROVIDER_TLS_CA_CONFIGMAP_KEY", "bundle.crt"));
    assertThat(named.goldmane().tls().secretName()).isEqualTo("my-pair");
    assertThat(named.goldmane().tls().caConfigMapKey()).isEqualTo("bundle.crt");
    assertThatThrownBy(() -> IngestEnvironment.config(Map.of("NE_PROVIDER", "calico",
        "NE_PROVIDER_TLS_MODE", "insecure"))).isInstanceOf(ConfigException.class).hasMessageContaining("mutual TLS");
  }

  @Test
  void istioListensOnTheOtlpPortWithMutualTls() {
    IngestConfig c = IngestEnvironment.config(Map.of("NE_PROVIDER", "istio", "NE_OTLP_PORT", "14317",
        "NE_PROVIDER_TLS_CERT_DIR", "/certs", "NE_TRUST_DOMAIN", "mesh.example"));
    assertThat(c.istio().grpcPort()).isEqualTo(14317);
    assertThat(c.istio().requireClientCertificate()).isTrue();
    assertThat(c.istio().tls().certDir()).isEqualTo(Path.of("/certs"));
    assertThat(c.trustDomain()).isEqualTo("mesh.example");
  }

  @Test
  void mistakesNameTheVariable() {
    assertThatThrownBy(() -> IngestEnvironment.config(Map.of())).hasMessageContaining("NE_PROVIDER is not set");
    assertThatThrownBy(() -> IngestEnvironment.config(Map.of("NE_PROVIDER", "linkerd")))
        .hasMessageContaining("NE_PROVIDER");
    assertThatThrownBy(() -> IngestEnvironment.config(Map.of("NE_PROVIDER", "istio", "NE_OTLP_PORT", "abc")))
        .hasMessageContaining("NE_OTLP_PORT");
    assertThatThrownBy(() -> IngestEnvironment.config(Map.of("NE_PROVIDER", "istio", "NE_FLOW_DUMPER_ENABLED", "yes")))
        .hasMessageContaining("NE_FLOW_DUMPER_ENABLED");
    assertThatThrownBy(() -> IngestEnvironment.config(Map.of("NE_PROVIDER", "cilium",
        "NE_PROVIDER_TLS_SECRET_NAME", "x"))).hasMessageContaining("NE_PROVIDER_TLS_SECRET_NAMESPACE");
  }
}
