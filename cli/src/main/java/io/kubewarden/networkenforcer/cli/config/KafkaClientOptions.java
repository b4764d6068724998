package io.kubewarden.networkenforcer.cli.config;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * How to reach Kafka: what every command that reads or writes the topics needs, and all that {@code
 * simulate --from} and {@code replay} need (they create no topic; {@link KafkaOptions} adds the
 * topic-creation options of the services).
 */
public class KafkaClientOptions {
  @Option(
      names = "--kafka-bootstrap-servers",
      paramLabel = "HOST:PORT[,HOST:PORT]",
      description = "Kafka brokers (env NE_KAFKA_BOOTSTRAP_SERVERS).")
  String bootstrapServers;

  @Option(
      names = "--kafka-topic-prefix",
      defaultValue = "network-enforcer.",
      description = "Prefix of every topic name (default: ${DEFAULT-VALUE}).")
  String topicPrefix;

  @Option(
      names = "--kafka-property",
      paramLabel = "KEY=VALUE",
      description =
          "Any Kafka client property, repeatable: security.protocol=SSL, sasl.mechanism=SCRAM-SHA-512, ...")
  Map<String, String> properties = new HashMap<>();

  @Option(
      names = "--kafka-properties-file",
      paramLabel = "FILE",
      description =
          "A Java properties file of Kafka client properties (TLS/SASL secrets live here, not in flags).")
  Path propertiesFile;

  /** Partitions of topics this command would create: none, so the service default. */
  protected int partitions() {
    return KafkaSettings.DEFAULT_PARTITIONS;
  }

  protected short replicationFactor() {
    return KafkaSettings.DEFAULT_REPLICATION;
  }

  /** Validated settings; {@code fallbackBootstrap} is used when none was given (standalone). */
  public KafkaSettings settings(String fallbackBootstrap) {
    Map<String, String> all = new HashMap<>();
    if (propertiesFile != null) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(propertiesFile)) {
        p.load(in);
      } catch (IOException e) {
        throw new ConfigException(
            "cannot read --kafka-properties-file " + propertiesFile + ": " + e.getMessage());
      }
      p.forEach((k, v) -> all.put(String.valueOf(k), String.valueOf(v)));
    }
    if (properties != null) {
      all.putAll(properties);
    }
    String servers =
        bootstrapServers == null || bootstrapServers.isBlank()
            ? fallbackBootstrap
            : bootstrapServers;
    if (servers == null || servers.isBlank()) {
      // Named here: the variable this tool reads is NE_KAFKA_BOOTSTRAP_SERVERS, not Kafka's own.
      throw new ConfigException(
          "kafka bootstrap servers are not set; set --kafka-bootstrap-servers, the "
              + "environment variable NE_KAFKA_BOOTSTRAP_SERVERS or kafka-bootstrap-servers in the --config file to "
              + "host:port of your Kafka brokers");
    }
    return new KafkaSettings(servers, topicPrefix, partitions(), replicationFactor(), all)
        .validate();
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }
}
