package io.kubewarden.networkenforcer.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.topics.Topics;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaSettingsTest {

  private static KafkaSettings settings(String bootstrap, String prefix, int partitions, int rf) {
    return new KafkaSettings(bootstrap, prefix, partitions, (short) rf, Map.of());
  }

  @Test
  void defaultsAreValid() {
    KafkaSettings s = KafkaSettings.of("kafka-0.kafka:9092,kafka-1.kafka:9092").validate();
    assertThat(s.topicPrefix()).isEqualTo(Topics.DEFAULT_PREFIX);
    assertThat(s.partitions()).isEqualTo(KafkaSettings.DEFAULT_PARTITIONS);
    assertThat(s.replicationFactor()).isEqualTo(KafkaSettings.DEFAULT_REPLICATION);
    assertThat(s.topics().flows().name()).isEqualTo("network-enforcer.flows");
    assertThat(new KafkaSettings("h:1", null, 1, (short) 1, null).topicPrefix())
        .isEqualTo(Topics.DEFAULT_PREFIX);
    assertThat(settings("[::1]:9092", "", 1, 1).validate().topics().policies().name())
        .isEqualTo("policies");
  }

  @Test
  void missingBootstrapServersSaysHowToSetThem() {
    for (String blank : new String[] {null, "", "  "}) {
      assertThatThrownBy(() -> settings(blank, null, 1, 1).validate())
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("bootstrap servers are not set")
          .hasMessageContaining("--kafka-bootstrap-servers")
          .hasMessageContaining("NE_KAFKA_BOOTSTRAP_SERVERS");
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "kafka",
        "kafka:",
        ":9092",
        "kafka:port",
        "kafka:9092,other",
        "kafka:99999",
        "kafka:0"
      })
  void badBootstrapServerIsNamed(String bootstrap) {
    assertThatThrownBy(() -> settings(bootstrap, null, 1, 1).validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka bootstrap server '")
        .hasMessageContaining("is not host:port");
  }

  @Test
  void otherValuesAreChecked() {
    assertThatThrownBy(() -> settings("k:9092", "bad prefix/", 1, 1).validate())
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "kafka topic prefix 'bad prefix/' may contain only letters, digits, '.', '_' and '-'");
    assertThatThrownBy(() -> settings("k:9092", null, 0, 1).validate())
        .isInstanceOf(ConfigException.class)
        .hasMessage("kafka topic partitions must be at least 1, got 0");
    assertThatThrownBy(() -> settings("k:9092", null, 1, 0).validate())
        .isInstanceOf(ConfigException.class)
        .hasMessage("kafka replication factor must be at least 1, got 0");
  }

  @Test
  void clientConfigPassesPropertiesThroughAndToStringMasksSecrets() {
    Map<String, String> props =
        Map.of(
            "security.protocol", "SASL_SSL",
            "sasl.mechanism", "SCRAM-SHA-512",
            "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required "
                    + "username=\"ne\" password=\"hunter2-jaas\";",
            "ssl.truststore.location", "/certs/truststore.p12",
            "ssl.truststore.password", "hunter2-truststore",
            "ssl.keystore.key", "-----BEGIN PRIVATE KEY-----hunter2-pem",
            "sasl.oauthbearer.client.credentials.client.secret", "hunter2-oauth",
            "basic.auth.user.info", "ne:hunter2-basic");
    KafkaSettings s = new KafkaSettings("k:9093", null, 3, (short) 1, props).validate();

    Properties config = s.clientConfig();
    assertThat(config)
        .containsEntry("bootstrap.servers", "k:9093")
        .containsEntry("ssl.truststore.password", "hunter2-truststore")
        .containsEntry("security.protocol", "SASL_SSL");

    String shown = s.toString();
    assertThat(shown)
        .doesNotContain("hunter2")
        .contains(
            "security.protocol=SASL_SSL",
            "ssl.truststore.location=/certs/truststore.p12",
            "sasl.mechanism=SCRAM-SHA-512",
            "sasl.jaas.config=****",
            "ssl.truststore.password=****",
            "bootstrapServers=k:9093");
  }

  @Test
  void clientPropertiesCannotBeChangedAfterwards() {
    HashMap<String, String> props = new HashMap<>(Map.of("acks", "all"));
    KafkaSettings s = new KafkaSettings("k:1", null, 1, (short) 1, props);
    props.put("acks", "0");
    assertThat(s.clientProperties()).containsEntry("acks", "all");
    assertThatThrownBy(() -> s.clientProperties().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
