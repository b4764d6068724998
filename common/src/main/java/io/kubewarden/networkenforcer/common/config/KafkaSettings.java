package io.kubewarden.networkenforcer.common.config;

import io.kubewarden.networkenforcer.common.topics.Topics;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * How every service reaches Kafka and names its topics.
 *
 * @param bootstrapServers {@code host:port[,host:port]}
 * @param topicPrefix prefix of every topic name, default {@code network-enforcer.}
 * @param partitions partitions of the topics we create (flows, policies, control must match)
 * @param replicationFactor replication of the topics we create (1 for standalone)
 * @param clientProperties passed to every client as they are: TLS, SASL and tuning ({@code
 *     security.protocol}, {@code ssl.truststore.location}, {@code sasl.jaas.config}, ...)
 */
public record KafkaSettings(
    String bootstrapServers,
    String topicPrefix,
    int partitions,
    short replicationFactor,
    Map<String, String> clientProperties) {

  public static final int DEFAULT_PARTITIONS = 6;
  public static final short DEFAULT_REPLICATION = 3;

  public KafkaSettings {
    topicPrefix = topicPrefix == null ? Topics.DEFAULT_PREFIX : topicPrefix;
    clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
  }

  public static KafkaSettings of(String bootstrapServers) {
    return new KafkaSettings(
        bootstrapServers, Topics.DEFAULT_PREFIX, DEFAULT_PARTITIONS, DEFAULT_REPLICATION, Map.of());
  }

  /** Checks every value and says what to fix. Returns this for chaining. */
  public KafkaSettings validate() {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new ConfigException(
          "kafka bootstrap servers are not set; set --kafka-bootstrap-servers "
              + "(env NE_KAFKA_BOOTSTRAP_SERVERS) to host:port of your Kafka brokers");
    }
    for (String server : bootstrapServers.split(",")) {
      String s = server.trim();
      int colon = s.lastIndexOf(':');
      if (colon <= 0
          || colon == s.length() - 1
          || !s.substring(colon + 1).chars().allMatch(Character::isDigit)
          || !validPort(s.substring(colon + 1))) {
        throw new ConfigException("kafka bootstrap server '" + s + "' is not host:port");
      }
    }
    if (!topicPrefix.matches("[a-zA-Z0-9._-]*")) {
      throw new ConfigException(
          "kafka topic prefix '"
              + topicPrefix
              + "' may contain only letters, digits, '.', '_' and '-'");
    }
    if (partitions < 1) {
      throw new ConfigException("kafka topic partitions must be at least 1, got " + partitions);
    }
    if (replicationFactor < 1) {
      throw new ConfigException(
          "kafka replication factor must be at least 1, got " + replicationFactor);
    }
    return this;
  }

  public Topics topics() {
    return new Topics(topicPrefix);
  }

  /** Base properties for any Kafka client: bootstrap servers plus the pass-through properties. */
  public Properties clientConfig() {
    Properties p = new Properties();
    p.putAll(clientProperties);
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return p;
  }

  /** For logs: the client properties with every secret masked. */
  @Override
  public String toString() {
    Map<String, String> shown = new TreeMap<>();
    clientProperties.forEach((k, v) -> shown.put(k, isSecret(k) ? "****" : v));
    return "KafkaSettings[bootstrapServers="
        + bootstrapServers
        + ", topicPrefix="
        + topicPrefix
        + ", partitions="
        + partitions
        + ", replicationFactor="
        + replicationFactor
        + ", clientProperties="
        + shown
        + "]";
  }

  private static boolean validPort(String digits) {
    // At most 5 digits first, so a very long number cannot overflow the parse.
    return digits.length() <= 5
        && Integer.parseInt(digits) >= 1
        && Integer.parseInt(digits) <= 65535;
  }

  private static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    // user.info: the user:password of basic auth (schema registry style clients).
    return k.contains("password")
        || k.contains("jaas")
        || k.contains("secret")
        || k.contains("token")
        || k.contains("key")
        || k.contains("credential")
        || k.contains("user.info");
  }
}
