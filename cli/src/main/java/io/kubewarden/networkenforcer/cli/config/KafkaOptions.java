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

/** The Kafka options every service shares. */
public class KafkaOptions {

  @Option(names = "--kafka-bootstrap-servers", paramLabel = "HOST:PORT[,HOST:PORT]",
      description = "Kafka brokers (env NE_KAFKA_BOOTSTRAP_SERVERS).")
  String bootstrapServers;

  @Option(names = "--kafka-topic-prefix", defaultValue = "network-enforcer.",
      description = "Prefix of every topic name (default: ${DEFAULT-VALUE}).")
  String topicPrefix;

  @Option(names = "--kafka-partitions", defaultValue = "6",
      description = "Partitions of the topics created at start (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Option(names = "--kafka-replication-factor", defaultValue = "3",
      description = "Replication factor of the topics created at start (default: ${DEFAULT-VALUE}).")
  short replicationFactor;

  @Option(names = "--kafka-property", paramLabel = "KEY=VALUE",
      description = "Any Kafka client property, repeatable: security.protocol=SSL, sasl.mechanism=SCRAM-SHA-512, ...")
  Map<String, String> properties = new HashMap<>();

  @Option(names = "--kafka-properties-file", paramLabel = "FILE",
      description = "A Java properties file of Kafka client properties (TLS/SASL secrets live here, not in flags).")
  Path propertiesFile;

  @Option(names = "--kafka-flows-retention-ms", paramLabel = "MS", defaultValue = "604800000",
      description = "Retention of the flows topic when it is created: the replay window (default: ${DEFAULT-VALUE}, 7 days).")
  long flowsRetentionMs;

  @Option(names = "--kafka-create-topics", paramLabel = "true|false", arity = "0..1", fallbackValue = "true",
      defaultValue = "true", description = "Create missing topics at start (default: ${DEFAULT-VALUE}); "
          + "false when an operator such as Strimzi owns them.")
  boolean createTopics;

  public long flowsRetentionMs() {
    if (flowsRetentionMs < 60_000) {
      throw new ConfigException("--kafka-flows-retention-ms " + flowsRetentionMs
          + " is below one minute; the flows topic is the replay window (default 604800000 = 7 days)");
    }
    return flowsRetentionMs;
  }

  public boolean createTopics() {
    return createTopics;
  }

  /** Validated settings; {@code fallbackBootstrap} is used when none was given (standalone). */
  public KafkaSettings settings(String fallbackBootstrap) {
    Map<String, String> all = new HashMap<>();
    if (propertiesFile != null) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(propertiesFile)) {
        p.load(in);
      } catch (IOException e) {
        throw new ConfigException("cannot read --kafka-properties-file " + propertiesFile + ": " + e.getMessage());
      }
      p.forEach((k, v) -> all.put(String.valueOf(k), String.valueOf(v)));
    }
    if (properties != null) {
      all.putAll(properties);
    }
    String servers = bootstrapServers == null || bootstrapServers.isBlank() ? fallbackBootstrap : bootstrapServers;
    return new KafkaSettings(servers, topicPrefix, partitions, replicationFactor, all).validate();
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }
}
