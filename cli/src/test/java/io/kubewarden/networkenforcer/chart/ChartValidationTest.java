package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every invalid combination is refused at install time, with a message that says what to change.
 */
class ChartValidationTest {

  static Stream<Arguments> invalidValues() {
    return Stream.of(
        // the api.md rules (templates/validate.yaml)
        Arguments.of(
            "calico refuses insecure",
            values(
                "controller.provider.name",
                "calico",
                "controller.provider.calico.tls.mode",
                "insecure"),
            "controller.provider.calico.tls.mode=insecure is not allowed: Goldmane only accepts mutual TLS"),
        Arguments.of(
            "istio secret in another namespace",
            values(
                "controller.provider.istio.tls.mode",
                "existingSecret",
                "controller.provider.istio.tls.existingSecret.name",
                "certs",
                "controller.provider.istio.tls.existingSecret.namespace",
                "istio-system"),
            "controller.provider.istio.tls.existingSecret must be in the release namespace \""
                + NAMESPACE
                + "\""),
        Arguments.of(
            "istio existingSecret without the client's name",
            values(
                "controller.provider.istio.tls.mode",
                "existingSecret",
                "controller.provider.istio.tls.existingSecret.name",
                "certs"),
            "controller.provider.istio.tls.clientName is required when tls.mode=existingSecret"),
        Arguments.of(
            "probes on the management port",
            values("probePort", "8080"),
            "probePort and managementPort are both 8080"),
        Arguments.of(
            "existingSecret without a name",
            values("controller.provider.istio.tls.mode", "existingSecret"),
            "controller.provider.istio.tls.existingSecret.name is required when "
                + "controller.provider.istio.tls.mode=existingSecret"),
        Arguments.of(
            "our old key name",
            values("controller.provider.calico.tls.existingSecret.caConfigMap", "x"),
            "caConfigMap"),
        // ours
        Arguments.of(
            "distributed without brokers",
            values("mode", "distributed"),
            "kafka.bootstrapServers is required when mode=distributed"),
        Arguments.of(
            "strimzi topics without cluster",
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.strimzi.createTopics",
                "true"),
            "kafka.strimzi.clusterName is required when kafka.strimzi.createTopics=true"),
        Arguments.of(
            "strimzi topics in standalone",
            values("kafka.strimzi.createTopics", "true", "kafka.strimzi.clusterName", "my-cluster"),
            "kafka.strimzi.createTopics requires mode=distributed"),
        Arguments.of(
            "two ingest replicas read Hubble twice",
            values("controller.provider.name", "cilium", "ingest.replicas", "2"),
            "ingest.replicas must be 1 with the cilium provider"),
        Arguments.of(
            "standbys need another instance",
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "processor.replicas",
                "1"),
            "processor.standbyReplicas must be lower than processor.replicas"),
        Arguments.of(
            "plain text without the loud value",
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.tls.enabled",
                "false"),
            "kafka.tls.enabled=false means plain text with no authentication"),
        Arguments.of(
            "plain text acknowledged while TLS is on",
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.insecurePlaintext",
                "true"),
            "set kafka.tls.enabled=false as well"),
        Arguments.of(
            "cert-manager client certificates for SCRAM",
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.authentication",
                "scram-sha-512",
                "kafka.tls.certManager.issuerRef.name",
                "ca"),
            "kafka.tls.certManager.issuerRef issues client certificates: it needs kafka.authentication=mtls"),
        Arguments.of(
            "Strimzi users without a cluster",
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.strimzi.createUsers",
                "true"),
            "kafka.strimzi.clusterName is required when kafka.strimzi.createUsers=true"),
        Arguments.of(
            "Strimzi users away from the pods",
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.strimzi.createUsers",
                "true",
                "kafka.strimzi.clusterName",
                "c",
                "kafka.strimzi.namespace",
                "kafka"),
            "kafka.strimzi.createUsers needs the KafkaUsers in the release namespace"),
        Arguments.of(
            "Strimzi users with SCRAM-SHA-256",
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.strimzi.createUsers",
                "true",
                "kafka.strimzi.clusterName",
                "c",
                "kafka.authentication",
                "scram-sha-256"),
            "Strimzi's KafkaUser has no scram-sha-256"),
        Arguments.of(
            "external collector without endpoint",
            values("telemetry.collectorStrategy", "external"),
            "telemetry.externalCollector.endpoint is required when telemetry.collectorStrategy=external"),
        // values.schema.json
        Arguments.of(
            "unknown provider",
            values("controller.provider.name", "linkerd"),
            "at '/controller/provider/name': value must be one of 'istio', 'calico', 'cilium'"),
        Arguments.of(
            "unknown mode",
            values("mode", "cluster"),
            "at '/mode': value must be one of 'standalone', 'distributed'"),
        Arguments.of(
            "unknown TLS mode",
            values("controller.provider.cilium.tls.mode", "plaintext"),
            "at '/controller/provider/cilium/tls/mode': value must be one of"),
        Arguments.of(
            "unknown collector strategy",
            values("telemetry.collectorStrategy", "otel"),
            "at '/telemetry/collectorStrategy': value must be one of 'default', 'external', 'none'"),
        Arguments.of(
            "unknown collector protocol",
            values("telemetry.externalCollector.protocol", "http"),
            "at '/telemetry/externalCollector/protocol'"),
        Arguments.of(
            "unknown Kafka authentication",
            values("kafka.authentication", "GSSAPI"),
            "at '/kafka/authentication'"),
        Arguments.of("zero partitions", values("kafka.partitions", "0"), "at '/kafka/partitions'"),
        Arguments.of(
            "bootstrap without port",
            values("kafka.bootstrapServers", "kafka"),
            "at '/kafka/bootstrapServers'"),
        Arguments.of(
            "bad status interval",
            values("controller.wnpStatusUpdateInterval", "thirty"),
            "at '/controller/wnpStatusUpdateInterval'"),
        Arguments.of(
            "flow dumper port out of range",
            values("controller.flowDumper.port", "70000"),
            "at '/controller/flowDumper/port'"),
        Arguments.of(
            "misspelt key",
            values("controller.wnpStatusUpdateIntervall", "30s"),
            "wnpStatusUpdateIntervall"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidValues")
  void refusesWithItsMessage(String description, Map<String, String> values, String message) {
    HelmChart.Result result = HelmChart.template(values);
    assertThat(result.ok()).as("helm template should fail: " + description).isFalse();
    assertThat(result.stderr()).contains(message);
  }

  @Test
  void calicoInsecureIsRefusedInEveryModeAndCollectorStrategy() {
    Combination.all().stream()
        .filter(c -> !c.valid() && c.provider().equals("calico"))
        .forEach(
            c -> {
              HelmChart.Result result = HelmChart.template(c.values());
              assertThat(result.ok()).as(c.toString()).isFalse();
              assertThat(result.stderr())
                  .as(c.toString())
                  .contains("controller.provider.calico.tls.mode=insecure is not allowed");
            });
  }

  @Test
  void ciliumInsecureOnACustomPortKeepsThePort() {
    Manifests m =
        HelmChart.render(
            values(
                "controller.provider.name",
                "cilium",
                "controller.provider.cilium.tls.mode",
                "insecure",
                "controller.provider.cilium.endpoint",
                "relay.example.svc:4245"));
    assertThat(env(container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer")))
        .containsEntry("NE_HUBBLE_ENDPOINT", "relay.example.svc:4245");
  }

  @Test
  void ciliumInsecureDropsTheServerNameAsTheCommandLineDoes() {
    // The default serverName stays set: insecure ignores it instead of refusing the install.
    Manifests m =
        HelmChart.render(
            values(
                "controller.provider.name",
                "cilium",
                "controller.provider.cilium.tls.mode",
                "insecure"));
    assertThat(env(container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer")))
        .containsEntry("NE_HUBBLE_ENDPOINT", "hubble-relay.kube-system.svc:80")
        .containsEntry("NE_PROVIDER_TLS_MODE", "insecure")
        .doesNotContainKey("NE_PROVIDER_TLS_SERVER_NAME");
    Manifests tls = HelmChart.render(values("controller.provider.name", "cilium"));
    assertThat(env(container(tls.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer")))
        .containsEntry("NE_PROVIDER_TLS_SERVER_NAME", "ui.hubble-relay.cilium.io");
  }

  @Test
  void istioSecretNamingTheReleaseNamespaceIsAccepted() {
    Manifests m =
        HelmChart.render(
            values(
                "controller.provider.istio.tls.mode",
                "existingSecret",
                "controller.provider.istio.tls.existingSecret.name",
                "certs",
                "controller.provider.istio.tls.existingSecret.namespace",
                NAMESPACE,
                "controller.provider.istio.tls.clientName",
                "fluent-bit.example"));
    assertThat(
            Manifests.volume(m.get("StatefulSet", FULLNAME + "-standalone"), "provider-certs")
                .orElseThrow()
                .path("secret")
                .path("secretName")
                .asText())
        .isEqualTo("certs");
  }

  @Test
  void calicoSecretOfTheReleaseNamespaceIsMountedAloneWithItsOwnCa() {
    // What the compatibility notes tell a user with a client Secret of their own: name it, leave
    // the
    // namespace empty. Calico's CA ConfigMap (goldmane-ca-bundle) lives in calico-system, never
    // here:
    // mounting it would leave the pod in ContainerCreating.
    Manifests m =
        HelmChart.render(
            values(
                "controller.provider.name",
                "calico",
                "controller.provider.calico.tls.existingSecret.name",
                "net-enf-goldmane-client-certs",
                "controller.provider.calico.tls.existingSecret.namespace",
                ""));
    var standalone = m.get("StatefulSet", FULLNAME + "-standalone");
    var volume = Manifests.volume(standalone, "provider-certs").orElseThrow();
    assertThat(volume.path("secret").path("secretName").asText())
        .isEqualTo("net-enf-goldmane-client-certs");
    assertThat(volume.has("projected")).isFalse();
    assertThat(m.all().toString()).doesNotContain("goldmane-ca-bundle");
    assertThat(env(container(standalone, "network-enforcer")))
        .containsEntry("NE_PROVIDER_TLS_CERT_DIR", "/etc/provider/certs")
        .doesNotContainKeys("NE_PROVIDER_TLS_SECRET_NAMESPACE", "NE_PROVIDER_TLS_CA_CONFIGMAP");
    assertThat(m.find("Role", FULLNAME + "-provider-tls")).isEmpty();

    // The same with the release namespace named: the same mount.
    Manifests named =
        HelmChart.render(
            values(
                "controller.provider.name",
                "calico",
                "controller.provider.calico.tls.existingSecret.name",
                "net-enf-goldmane-client-certs",
                "controller.provider.calico.tls.existingSecret.namespace",
                NAMESPACE));
    assertThat(
            Manifests.volume(named.get("StatefulSet", FULLNAME + "-standalone"), "provider-certs")
                .orElseThrow()
                .path("secret")
                .path("secretName")
                .asText())
        .isEqualTo("net-enf-goldmane-client-certs");

    // A CA bundle ConfigMap the user put in the release namespace: one projected volume, Calico's
    // key by default.
    Manifests bundle =
        HelmChart.render(
            values(
                "controller.provider.name",
                "calico",
                "controller.provider.calico.tls.existingSecret.name",
                "net-enf-goldmane-client-certs",
                "controller.provider.calico.tls.existingSecret.namespace",
                "",
                "controller.provider.calico.tls.existingSecret.caBundleConfigMap",
                "my-goldmane-ca"));
    var sources =
        Manifests.volume(bundle.get("StatefulSet", FULLNAME + "-standalone"), "provider-certs")
            .orElseThrow()
            .path("projected")
            .path("sources");
    assertThat(sources.get(0).path("secret").path("name").asText())
        .isEqualTo("net-enf-goldmane-client-certs");
    assertThat(sources.get(1).path("configMap").path("name").asText()).isEqualTo("my-goldmane-ca");
    assertThat(sources.get(1).path("configMap").path("items").get(0).path("key").asText())
        .isEqualTo("tigera-ca-bundle.crt");
  }

  @Test
  void calicoSecretOfAnotherNamespaceReadsCalicosCaBundleByDefault() {
    // The default: Secret and ConfigMap in calico-system, read through the API.
    Manifests m = HelmChart.render(values("controller.provider.name", "calico"));
    assertThat(env(container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer")))
        .containsEntry("NE_PROVIDER_TLS_SECRET_NAMESPACE", "calico-system")
        .containsEntry("NE_PROVIDER_TLS_CA_CONFIGMAP", "goldmane-ca-bundle")
        .containsEntry("NE_PROVIDER_TLS_CA_CONFIGMAP_KEY", "tigera-ca-bundle.crt");
  }
}
