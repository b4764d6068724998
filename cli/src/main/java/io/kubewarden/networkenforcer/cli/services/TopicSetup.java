package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.topics.MissingTopics;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Creates the pipeline's topics that are missing, with the configured partitions, replication and
 * flows retention (the replay window). Existing topics are left as they are.
 */
public final class TopicSetup {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private TopicSetup() {}

  public static void createMissing(KafkaSettings kafka, long flowsRetentionMs) {
    List<NewTopic> wanted = new ArrayList<>();
    for (Topic<?, ?> topic : kafka.topics().all()) {
      NewTopic t = topic.newTopic(kafka.partitions(), kafka.replicationFactor());
      if (topic.name().equals(kafka.topics().flows().name())) {
        t.configs().put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(flowsRetentionMs));
      }
      wanted.add(t);
    }
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      MissingTopics.create(admin, wanted, TIMEOUT, kafka.bootstrapServers());
    }
  }
}
