package io.kubewarden.networkenforcer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.ingest.publishing.ProducerTuning;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.ingest.ztunnel.OtlpSettings;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class IngestConfigTest {

  @Test
  void defaultsFollowTheHelmValues() {
    IngestConfig c = IngestConfig.defaults(Provider.cilium).validate();
    assertThat(c.hubble().target()).isEqualTo("hubble-relay.kube-system.svc:443");
    assertThat(c.hubble().tls().mode()).isEqualTo(TlsMode.existingSecret);
    assertThat(c.hubble().tls().secretName()).isEqualTo("hubble-relay-client-certs");
    assertThat(c.hubble().tls().serverName()).isEqualTo("ui.hubble-relay.cilium.io");
    assertThat(c.goldmane().target()).isEqualTo("goldmane.calico-system.svc:7443");
    assertThat(c.goldmane().tls().caConfigMapKey()).isEqualTo("tigera-ca-bundle.crt");
    assertThat(c.istio().grpcPort()).isEqualTo(4317);
    assertThat(c.dumper()).isEqualTo(new IngestConfig.Dumper(false, 9080, 10_000));
    IngestConfig.defaults(Provider.calico).validate();
    IngestConfig.defaults(Provider.istio).validate();
  }

  @Test
  void insecureHubbleMovesToPort80AndDropsTheServerName() {
    StreamSettings insecure = IngestConfig.defaultHubble(TlsMode.insecure);
    assertThat(insecure.target()).endsWith(":80");
    assertThat(insecure.tls().serverName()).isNull();
    IngestConfig.defaults(Provider.cilium).withHubble(insecure).validate();
  }

  @Test
  void badValuesSayWhatToFix() {
    IngestConfig calico = IngestConfig.defaults(Provider.calico);
    assertThatThrownBy(
            () ->
                calico
                    .withGoldmane(
                        new StreamSettings(
                            "goldmane:7443",
                            TlsSettings.insecure(),
                            Duration.ofSeconds(1),
                            Duration.ofSeconds(5),
                            Keepalive.grpcGoCompatible()))
                    .validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("controller.provider.calico.tls.mode")
        .hasMessageContaining("mutual TLS");
    assertThatThrownBy(() -> IngestConfig.defaults(Provider.file).validate())
        .hasMessageContaining("istio, calico or cilium")
        .hasMessageContaining("learn");
    assertThatThrownBy(
            () ->
                IngestConfig.defaults(Provider.cilium)
                    .withHubble(
                        new StreamSettings(
                            "relay:443",
                            new TlsSettings(TlsMode.issuer, null, null, null, null, null, null),
                            Duration.ofSeconds(1),
                            Duration.ofSeconds(5),
                            Keepalive.grpcGoCompatible()))
                    .validate())
        .hasMessageContaining("controller.provider.cilium.tls")
        .hasMessageContaining("Secret");
    assertThatThrownBy(
            () ->
                IngestConfig.defaults(Provider.cilium)
                    .withHubble(
                        new StreamSettings(
                            "relay:443",
                            TlsSettings.insecure(),
                            Duration.ofSeconds(1),
                            Duration.ofSeconds(5),
                            new Keepalive(Duration.ofSeconds(30), Duration.ofSeconds(5))))
                    .validate())
        .hasMessageContaining("keepalive")
        .hasMessageContaining("5m");
    assertThatThrownBy(
            () ->
                IngestConfig.defaults(Provider.istio)
                    .withIstio(new OtlpSettings(4317, 4317, TlsSettings.insecure(), null))
                    .validate())
        .hasMessageContaining("must differ");
    assertThatThrownBy(
            () ->
                IngestConfig.defaults(Provider.istio)
                    .withDumper(new IngestConfig.Dumper(true, 9080, 0))
                    .validate())
        .hasMessageContaining("bufferSize");
    assertThatThrownBy(
            () ->
                IngestConfig.defaults(Provider.istio)
                    .withDumper(new IngestConfig.Dumper(true, 4317, 10))
                    .validate())
        .hasMessageContaining("already used");
    assertThatThrownBy(() -> IngestConfig.defaults(Provider.istio).withTrustDomain(" ").validate())
        .hasMessageContaining("trust domain");
    assertThatThrownBy(
            () ->
                IngestConfig.defaults(Provider.istio)
                    .withClusterStateFile(Path.of("/nonexistent/state.json"))
                    .validate())
        .hasMessageContaining("cluster-state");
    assertThatThrownBy(
            () ->
                IngestConfig.defaults(Provider.istio)
                    .withProducer(new ProducerTuning("brotli", Duration.ZERO, 65536))
                    .validate())
        .hasMessageContaining("compression");
    assertThatThrownBy(() -> TlsMode.parse("controller.provider.istio.tls.mode", "mtls"))
        .hasMessageContaining("issuer, existingSecret or insecure");
  }
}
