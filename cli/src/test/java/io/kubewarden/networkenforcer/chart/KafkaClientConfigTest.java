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

/** TLS and SASL to the Kafka cluster: the client properties file and the Secrets behind it. */
class KafkaClientConfigTest {
  private static final String DIR = "/etc/network-enforcer/kafka";

  private static Properties clientProperties(Manifests m) throws Exception {
    Properties properties = new Properties();
    properties.load(new StringReader(m.get("ConfigMap", FULLNAME + "-kafka-client").path("data")
        .path("client.properties").asText()));
    return properties;
  }

  private static List<JsonNode> kafkaContainers(Manifests m) {
    return List.of(container(m.get("Deployment", FULLNAME + "-ingest"), "ingest"),
        container(m.get("StatefulSet", FULLNAME + "-processor"), "processor"),
        container(m.get("Deployment", FULLNAME + "-writer"), "writer"));
  }

  @Test
  void mutualTlsReadsTheStrimziUserCertificateFromFiles() throws Exception {
    Manifests m = HelmChart.render(values("mode", "distributed", "kafka.bootstrapServers", "my-cluster-kafka-bootstrap:9093",
        "kafka.tls.enabled", "true", "kafka.tls.caSecret.name", "my-cluster-cluster-ca-cert",
        "kafka.tls.clientSecret.name", "network-enforcer", "kafka.extraProperties.client\\.rack", "zone-a"));
    Properties properties = clientProperties(m);
    assertThat(properties.getProperty("security.protocol")).isEqualTo("SSL");
    assertThat(properties.getProperty("ssl.truststore.type")).isEqualTo("PEM");
    assertThat(properties.getProperty("ssl.truststore.location")).isEqualTo(DIR + "/ca/ca.crt");
    assertThat(properties.getProperty("ssl.keystore.type")).isEqualTo("PEM");
    assertThat(properties.getProperty("ssl.keystore.key")).isEqualTo("${dir:" + DIR + "/client:tls.key}");
    assertThat(properties.getProperty("ssl.keystore.certificate.chain")).isEqualTo("${dir:" + DIR + "/client:tls.crt}");
    assertThat(properties.getProperty("config.providers.dir.class"))
        .isEqualTo("io.kubewarden.networkenforcer.common.tls.PemKeyDirectoryConfigProvider");
    assertThat(properties.getProperty("client.rack")).isEqualTo("zone-a");
    assertThat(properties).doesNotContainKey("ssl.endpoint.identification.algorithm");

    for (JsonNode c : kafkaContainers(m)) {
      assertThat(env(c)).containsEntry("NE_KAFKA_PROPERTIES_FILE", DIR + "/config/client.properties");
      assertThat(mounts(c)).containsEntry("kafka-config", DIR + "/config").containsEntry("kafka-ca", DIR + "/ca")
          .containsEntry("kafka-client-cert", DIR + "/client");
    }
    JsonNode ingest = m.get("Deployment", FULLNAME + "-ingest");
    JsonNode clientCert = volume(ingest, "kafka-client-cert").orElseThrow().path("secret");
    assertThat(clientCert.path("secretName").asText()).isEqualTo("network-enforcer");
    // Strimzi names the keys user.crt/user.key; the pod sees tls.crt/tls.key as the properties say.
    assertThat(Manifests.elements(clientCert.path("items"))).extracting(i -> i.path("key").asText() + "->"
        + i.path("path").asText()).containsExactly("user.crt->tls.crt", "user.key->tls.key");
    assertThat(ingest.path("spec").path("template").path("metadata").path("annotations")
        .path("checksum/kafka-client").asText()).hasSize(64);
  }

  @Test
  void saslPasswordStaysInItsSecret() throws Exception {
    Manifests m = HelmChart.render(values("mode", "distributed", "kafka.bootstrapServers", "kafka:9094",
        "kafka.tls.enabled", "true", "kafka.tls.caSecret.name", "kafka-ca", "kafka.tls.hostnameVerification", "false",
        "kafka.sasl.enabled", "true", "kafka.sasl.mechanism", "SCRAM-SHA-512", "kafka.sasl.username", "ne",
        "kafka.sasl.passwordSecret.name", "ne-kafka-password"));
    Properties properties = clientProperties(m);
    assertThat(properties.getProperty("security.protocol")).isEqualTo("SASL_SSL");
    assertThat(properties.getProperty("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
    assertThat(properties.getProperty("sasl.jaas.config")).isEqualTo(
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ne\" password=\"${dir:"
            + DIR + "/sasl:password}\";");
    assertThat(properties.getProperty("ssl.endpoint.identification.algorithm")).isEmpty();
    for (JsonNode c : kafkaContainers(m)) {
      assertThat(mounts(c)).containsEntry("kafka-sasl", DIR + "/sasl");
      assertThat(env(c).keySet()).noneMatch(k -> k.contains("PASSWORD"));
    }
    assertThat(volume(m.get("Deployment", FULLNAME + "-writer"), "kafka-sasl").orElseThrow().path("secret")
        .path("secretName").asText()).isEqualTo("ne-kafka-password");
    assertThat(m.ofKind("Secret")).isEmpty();
  }

  @Test
  void plainSaslUsesThePlainLoginModule() throws Exception {
    Manifests m = HelmChart.render(values("mode", "distributed", "kafka.bootstrapServers", "kafka:9092",
        "kafka.sasl.enabled", "true", "kafka.sasl.mechanism", "PLAIN", "kafka.sasl.username", "ne",
        "kafka.sasl.passwordSecret.name", "pw"));
    Properties properties = clientProperties(m);
    assertThat(properties.getProperty("security.protocol")).isEqualTo("SASL_PLAINTEXT");
    assertThat(properties.getProperty("sasl.jaas.config"))
        .startsWith("org.apache.kafka.common.security.plain.PlainLoginModule required");
  }

  @Test
  void plaintextNeedsNoPropertiesFile() {
    Manifests m = HelmChart.render(values("mode", "distributed", "kafka.bootstrapServers", "kafka:9092"));
    assertThat(m.find("ConfigMap", FULLNAME + "-kafka-client")).isEmpty();
    for (JsonNode c : kafkaContainers(m)) {
      assertThat(env(c)).doesNotContainKey("NE_KAFKA_PROPERTIES_FILE");
      assertThat(mounts(c).keySet()).noneMatch(k -> k.startsWith("kafka-"));
    }
  }

  @Test
  void standaloneNeverReachesForAnExternalCluster() {
    Manifests m = HelmChart.render(values("kafka.bootstrapServers", "kafka:9092", "kafka.replicationFactor", "3"));
    Map<String, String> env = env(container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer"));
    assertThat(env).doesNotContainKeys("NE_KAFKA_BOOTSTRAP_SERVERS", "NE_KAFKA_PROPERTIES_FILE")
        .containsEntry("NE_KAFKA_REPLICATION_FACTOR", "1");
  }
}
