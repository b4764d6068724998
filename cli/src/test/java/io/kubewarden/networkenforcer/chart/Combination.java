package io.kubewarden.networkenforcer.chart;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One point of the provider x TLS mode x collector strategy x mode matrix, as chart values. */
record Combination(String provider, String tlsMode, String collector, String mode) {
  static final List<String> PROVIDERS = List.of("istio", "calico", "cilium");
  static final List<String> TLS_MODES =
      List.of("issuer", "certificate", "existingSecret", "insecure");
  static final List<String> COLLECTORS = List.of("default", "external", "none");
  static final List<String> MODES = List.of("standalone", "distributed");
  static final String BOOTSTRAP = "kafka-kafka-bootstrap.kafka.svc:9093";
  static final String EXTERNAL_COLLECTOR = "otel.observability.svc:4317";
  static final String ISTIO_SECRET = "ne-otlp-certs";

  /** The issuer the provider trusts, named for ingest's own certificate (tls.mode certificate). */
  static final String PROVIDER_ISSUER = "provider-ca";

  /** The name in that Secret's certificate, pinned as the only OTLP client. */
  static final String ISTIO_CLIENT = "fluent-bit.example";

  static List<Combination> all() {
    List<Combination> all = new ArrayList<>();
    for (String provider : PROVIDERS) {
      for (String tls : TLS_MODES) {
        for (String collector : COLLECTORS) {
          for (String mode : MODES) {
            all.add(new Combination(provider, tls, collector, mode));
          }
        }
      }
    }
    return all;
  }

  /**
   * Goldmane speaks mutual TLS only: the one combination the api.md rules refuse. Istio has no
   * certificate mode (its receiver and fluent-bit get their own with issuer); the schema refuses
   * it.
   */
  boolean valid() {
    return !(provider.equals("calico") && tlsMode.equals("insecure"))
        && !(provider.equals("istio") && tlsMode.equals("certificate"));
  }

  boolean distributed() {
    return mode.equals("distributed");
  }

  Map<String, String> values() {
    Map<String, String> values =
        HelmChart.values(
            "controller.provider.name",
            provider,
            "controller.provider." + provider + ".tls.mode",
            tlsMode,
            "telemetry.collectorStrategy",
            collector,
            "mode",
            mode);
    if (distributed()) {
      values.put("kafka.bootstrapServers", BOOTSTRAP);
    }
    if (collector.equals("external")) {
      values.put("telemetry.externalCollector.endpoint", EXTERNAL_COLLECTOR);
      values.put("telemetry.externalCollector.otelCollectorCertificateSecret", "otel-ca");
    }
    if (provider.equals("cilium") && tlsMode.equals("insecure")) {
      values.put("controller.provider.cilium.tls.serverName", "");
    }
    if (tlsMode.equals("certificate")) {
      values.put("controller.provider." + provider + ".tls.issuerRef.name", PROVIDER_ISSUER);
    }
    if (provider.equals("istio") && tlsMode.equals("existingSecret")) {
      values.put("controller.provider.istio.tls.existingSecret.name", ISTIO_SECRET);
      values.put("controller.provider.istio.tls.clientName", ISTIO_CLIENT);
    }
    return values;
  }

  @Override
  public String toString() {
    return provider + "/" + tlsMode + "/" + collector + "/" + mode;
  }
}
