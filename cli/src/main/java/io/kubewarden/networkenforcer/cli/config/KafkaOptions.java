package io.kubewarden.networkenforcer.cli.config;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import picocli.CommandLine.Option;

/**
 * The Kafka options every service shares: the client's, and how the topics are created at start.
 */
public class KafkaOptions extends KafkaClientOptions {

  @Option(
      names = "--kafka-partitions",
      defaultValue = "6",
      description = "Partitions of the topics created at start (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Option(
      names = "--kafka-replication-factor",
      defaultValue = "3",
      description =
          "Replication factor of the topics created at start (default: ${DEFAULT-VALUE}).")
  short replicationFactor;

  @Option(
      names = "--kafka-flows-retention-ms",
      paramLabel = "MS",
      defaultValue = "604800000",
      description =
          "Retention of the flows topic when it is created: the replay window (default: ${DEFAULT-VALUE}, 7 days).")
  long flowsRetentionMs;

  @Option(
      names = "--kafka-create-topics",
      paramLabel = "true|false",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "true",
      description =
          "Create missing topics at start (default: ${DEFAULT-VALUE}); "
              + "false when an operator such as Strimzi owns them.")
  boolean createTopics;

  @Override
  protected int partitions() {
    return partitions;
  }

  @Override
  protected short replicationFactor() {
    return replicationFactor;
  }

  public long flowsRetentionMs() {
    if (flowsRetentionMs < 60_000) {
      throw new ConfigException(
          "--kafka-flows-retention-ms "
              + flowsRetentionMs
              + " is below one minute; the flows topic is the replay window (default 604800000 = 7 days)");
    }
    return flowsRetentionMs;
  }

  public boolean createTopics() {
    return createTopics;
  }
}
