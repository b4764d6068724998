package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the pipeline's topics that are missing, with the configured partitions, replication and
 * flows retention (the replay window). Existing topics are left as they are.
 */
public final class TopicSetup {
  private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private TopicSetup() {}

  public static void createMissing(KafkaSettings kafka, long flowsRetentionMs) {
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      Set<String> existing = admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      List<NewTopic> missing = new ArrayList<>();
      for (Topic<?, ?> topic : kafka.topics().all()) {
        if (existing.contains(topic.name())) {
          continue;
        }
        NewTopic t = topic.newTopic(kafka.partitions(), kafka.replicationFactor());
        if (topic.name().equals(kafka.topics().flows().name())) {
          t.configs().put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(flowsRetentionMs));
        }
        missing.add(t);
      }
      if (!missing.isEmpty()) {
        LOG.info("creating topics {}", missing.stream().map(NewTopic::name).toList());
        admin.createTopics(missing).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create the topics on " + kafka.bootstrapServers() + ": "
            + e.getCause().getMessage(), e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka at " + kafka.bootstrapServers() + " did not answer within "
          + TIMEOUT.toSeconds() + " s; check --kafka-bootstrap-servers and the client properties", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }
}
