package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static io.kubewarden.networkenforcer.chart.Manifests.mounts;
import static io.kubewarden.networkenforcer.chart.Manifests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * TLS and authentication to the Kafka cluster by default, one principal per component: the client
 * properties files and the Secrets behind them; plain text only by kafka.insecurePlaintext.
 */
class KafkaClientConfigTest {
  private static final String DIR = "/etc/network-enforcer/kafka";
  private static final Map<String, String> KINDS =
      Map.of("ingest", "Deployment", "processor", "StatefulSet", "writer", "Deployment");

  private static Properties clientProperties(Manifests m, String component) throws Exception {
    Properties properties = new Properties();
    properties.load(
        new StringReader(
            m.get("ConfigMap", FULLNAME + "-kafka-client")
                .path("data")
                .path(component + ".properties")
                .asText()));
    return properties;
  }

  private static JsonNode workload(Manifests m, String component) {
    return m.get(KINDS.get(component), FULLNAME + "-" + component);
  }

  private static List<String> items(JsonNode volume) {
    return Manifests.elements(volume.path("secret").path("items")).stream()
        .map(i -> i.path("key").asText() + "->" + i.path("path").asText())
        .toList();
  }

  @Test
  void defaultIsMutualTlsWithACertificatePerComponent() throws Exception {
    Manifests m =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9093",
                "kafka.extraProperties.client\\.rack",
                "zone-a"));
    for (String component : KINDS.keySet()) {
      Properties properties = clientProperties(m, component);
      assertThat(properties.getProperty("security.protocol")).isEqualTo("SSL");
      assertThat(properties.getProperty("ssl.truststore.type")).isEqualTo("PEM");
      // No CA Secret named: the issuer's CA that cert-manager writes next to the certificate.
      assertThat(properties.getProperty("ssl.truststore.location"))
          .isEqualTo(DIR + "/credentials/ca.crt");
      assertThat(properties.getProperty("ssl.keystore.type")).isEqualTo("PEM");
      assertThat(properties.getProperty("ssl.keystore.key"))
          .isEqualTo("${dir:" + DIR + "/credentials:tls.key}");
      assertThat(properties.getProperty("ssl.keystore.certificate.chain"))
          .isEqualTo("${dir:" + DIR + "/credentials:tls.crt}");
      assertThat(properties.getProperty("config.providers.dir.class"))
          .isEqualTo("io.kubewarden.networkenforcer.common.tls.PemKeyDirectoryConfigProvider");
      assertThat(properties.getProperty("client.rack")).isEqualTo("zone-a");
      assertThat(properties)
          .doesNotContainKeys("ssl.endpoint.identification.algorithm", "sasl.jaas.config");

      JsonNode pod = workload(m, component);
      JsonNode c = container(pod, component);
      assertThat(env(c))
          .containsEntry("NE_KAFKA_PROPERTIES_FILE", DIR + "/config/" + component + ".properties")
          .containsEntry("NE_KAFKA_CREATE_TOPICS", "false");
      assertThat(mounts(c))
          .containsEntry("kafka-config", DIR + "/config")
          .containsEntry("kafka-credentials", DIR + "/credentials")
          .doesNotContainKey("kafka-ca");
      JsonNode credentials = volume(pod, "kafka-credentials").orElseThrow();
      assertThat(credentials.path("secret").path("secretName").asText())
          .isEqualTo(FULLNAME + "-kafka-" + component);
      assertThat(items(credentials))
          .containsExactly("tls.crt->tls.crt", "tls.key->tls.key", "ca.crt->ca.crt");
      // Only its own file: a component never sees another's principal.
      assertThat(
              Manifests.elements(
                  volume(pod, "kafka-config").orElseThrow().path("configMap").path("items")))
          .extracting(i -> i.path("key").asText())
          .containsExactly(component + ".properties");
      assertThat(
              pod.path("spec")
                  .path("template")
                  .path("metadata")
                  .path("annotations")
                  .path("checksum/kafka-client")
                  .asText())
          .hasSize(64);
    }
  }

  @Test
  void certManagerIssuesEachComponentsCertificateIntoTheSecretItMounts() {
    Manifests m =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9093",
                "kafka.tls.certManager.issuerRef.name",
                "kafka-clients",
                "kafka.credentials.writer.secretName",
                "w"));
    assertThat(m.ofKind("Certificate"))
        .filteredOn(
            c ->
                c.path("metadata").path("name").asText().contains("-kafka-")
                    || c.path("spec").path("secretName").asText().equals("w"))
        .hasSize(3);
    for (String component : KINDS.keySet()) {
      String secret =
          volume(workload(m, component), "kafka-credentials")
              .orElseThrow()
              .path("secret")
              .path("secretName")
              .asText();
      JsonNode certificate =
          m.ofKind("Certificate").stream()
              .filter(c -> c.path("spec").path("secretName").asText().equals(secret))
              .findFirst()
              .orElseThrow();
      JsonNode spec = certificate.path("spec");
      // The principal: one subject per component, whatever the Secret is called.
      assertThat(spec.path("commonName").asText()).isEqualTo(FULLNAME + "-kafka-" + component);
      assertThat(spec.path("privateKey").path("algorithm").asText()).isEqualTo("RSA");
      assertThat(Manifests.elements(spec.path("usages")))
          .extracting(JsonNode::asText)
          .contains("client auth");
      assertThat(spec.path("issuerRef").path("name").asText()).isEqualTo("kafka-clients");
      assertThat(spec.path("issuerRef").path("kind").asText()).isEqualTo("ClusterIssuer");
    }
    assertThat(
            HelmChart.render(values("mode", "distributed", "kafka.bootstrapServers", "kafka:9093"))
                .ofKind("Certificate"))
        .noneMatch(c -> c.path("metadata").path("name").asText().contains("-kafka-"));
  }

  @Test
  void strimziUsersGiveEachComponentItsUserSecretAndTheClusterCa() throws Exception {
    Manifests m =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "my-cluster-kafka-bootstrap:9093",
                "kafka.strimzi.createUsers",
                "true",
                "kafka.strimzi.clusterName",
                "my-cluster",
                "kafka.strimzi.createTopics",
                "true"));
    assertThat(m.ofKind("KafkaUser"))
        .extracting(u -> u.path("metadata").path("name").asText())
        .containsExactlyInAnyOrder(
            FULLNAME + "-kafka-ingest", FULLNAME + "-kafka-processor", FULLNAME + "-kafka-writer");
    for (String component : KINDS.keySet()) {
      assertThat(clientProperties(m, component).getProperty("ssl.truststore.location"))
          .isEqualTo(DIR + "/ca/ca.crt");
      JsonNode pod = workload(m, component);
      // Strimzi names the keys user.crt/user.key; the pod sees tls.crt/tls.key as the properties
      // say.
      assertThat(items(volume(pod, "kafka-credentials").orElseThrow()))
          .containsExactly("user.crt->tls.crt", "user.key->tls.key");
      JsonNode ca = volume(pod, "kafka-ca").orElseThrow();
      assertThat(ca.path("secret").path("secretName").asText())
          .isEqualTo("my-cluster-cluster-ca-cert");
      assertThat(
              m.get("KafkaUser", FULLNAME + "-kafka-" + component)
                  .path("spec")
                  .path("authentication")
                  .path("type")
                  .asText())
          .isEqualTo("tls");
    }
  }

  @Test
  void scramPasswordStaysInItsSecretOneUserPerComponent() throws Exception {
    Manifests m =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9094",
                "kafka.authentication",
                "scram-sha-512",
                "kafka.tls.caSecret.name",
                "kafka-ca",
                "kafka.tls.hostnameVerification",
                "false",
                "kafka.credentials.writer.username",
                "ne-writer"));
    for (String component : KINDS.keySet()) {
      Properties properties = clientProperties(m, component);
      assertThat(properties.getProperty("security.protocol")).isEqualTo("SASL_SSL");
      assertThat(properties.getProperty("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
      String user = component.equals("writer") ? "ne-writer" : FULLNAME + "-kafka-" + component;
      assertThat(properties.getProperty("sasl.jaas.config"))
          .isEqualTo(
              "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                  + user
                  + "\" password=\"${dir:"
                  + DIR
                  + "/credentials:password}\";");
      assertThat(properties.getProperty("ssl.truststore.location")).isEqualTo(DIR + "/ca/ca.crt");
      assertThat(properties.getProperty("ssl.endpoint.identification.algorithm")).isEmpty();
      assertThat(properties)
          .doesNotContainKeys("ssl.keystore.key", "ssl.keystore.certificate.chain");
      JsonNode pod = workload(m, component);
      assertThat(env(container(pod, component)).keySet()).noneMatch(k -> k.contains("PASSWORD"));
      assertThat(items(volume(pod, "kafka-credentials").orElseThrow()))
          .containsExactly("password->password");
    }
    assertThat(m.ofKind("Secret")).isEmpty();
    assertThat(m.ofKind("KafkaUser")).isEmpty();
  }

  @Test
  void plaintextOnlyByTheLoudValueAndThenNoPropertiesFile() {
    Manifests m =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.tls.enabled",
                "false",
                "kafka.insecurePlaintext",
                "true"));
    assertThat(m.find("ConfigMap", FULLNAME + "-kafka-client")).isEmpty();
    for (String component : KINDS.keySet()) {
      JsonNode c = container(workload(m, component), component);
      assertThat(env(c))
          .doesNotContainKey("NE_KAFKA_PROPERTIES_FILE")
          .containsEntry("NE_KAFKA_CREATE_TOPICS", "true");
      assertThat(mounts(c).keySet()).noneMatch(k -> k.startsWith("kafka-"));
    }
  }

  @Test
  void standaloneNeverReachesForAnExternalCluster() {
    Manifests m =
        HelmChart.render(
            values("kafka.bootstrapServers", "kafka:9092", "kafka.replicationFactor", "3"));
    Map<String, String> env =
        env(container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer"));
    assertThat(env)
        .doesNotContainKeys("NE_KAFKA_BOOTSTRAP_SERVERS", "NE_KAFKA_PROPERTIES_FILE")
        .containsEntry("NE_KAFKA_REPLICATION_FACTOR", "1");
  }
}
