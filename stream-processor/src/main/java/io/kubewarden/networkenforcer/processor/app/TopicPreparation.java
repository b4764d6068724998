package io.kubewarden.networkenforcer.processor.app;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.topics.MissingTopics;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Before the topology starts: creates the topics the processor uses when they are missing (if
 * allowed), and checks co-partitioning. policies, control and the re-attribution topic are read by
 * the same task as the observations repartition topic (created by Kafka Streams with {@code
 * kafka.partitions}); if their partition counts differ, a target's policy would sit in a different
 * task than its flows, and learning would never stop. That is a startup error.
 */
public final class TopicPreparation {
  private static final long TIMEOUT_SECONDS = 60;
  private static final long RETRY_BACKOFF_MS = 200;

  private final ProcessorConfig config;

  public TopicPreparation(ProcessorConfig config) {
    this.config = config;
  }

  public void prepare(Admin admin) {
    if (config.createTopics()) {
      createMissing(admin);
    }
    checkCoPartitioning(admin);
  }

  private List<Topic<?, ?>> topicsUsed() {
    Topics t = config.topics();
    return List.of(
        t.flows(),
        t.policies(),
        t.control(),
        t.proposals(),
        t.violations(),
        t.deadLetter(),
        t.nativePolicies(),
        t.dataPlaneLoss(),
        NetworkEnforcerTopology.reattributionTopic(config));
  }

  private void createMissing(Admin admin) {
    List<NewTopic> wanted = new ArrayList<>();
    for (Topic<?, ?> topic : topicsUsed()) {
      wanted.add(topic.newTopic(config.kafka().partitions(), config.kafka().replicationFactor()));
    }
    MissingTopics.create(
        admin, wanted, Duration.ofSeconds(TIMEOUT_SECONDS), config.kafka().bootstrapServers());
  }

  /** Fails with a message naming every topic and its partition count when they differ. */
  public void checkCoPartitioning(Admin admin) {
    Topics t = config.topics();
    List<String> names =
        List.of(t.policies().name(), t.control().name(), config.reattributionTopic());
    Map<String, TopicDescription> found = describe(admin, names);
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String name : names) {
      counts.put(name, found.get(name).partitions().size());
    }
    int expected = config.kafka().partitions();
    boolean ok = counts.values().stream().allMatch(c -> c == expected);
    if (!ok) {
      StringBuilder msg = new StringBuilder("topics are not co-partitioned: ");
      counts.forEach(
          (name, count) -> msg.append(name).append(" has ").append(count).append(" partitions, "));
      msg.append("and the repartition topic ")
          .append(NetworkEnforcerTopology.observationsRepartitionTopic(config))
          .append(" is created with ")
          .append(expected)
          .append(" (kafka partitions setting). ")
          .append(
              "They must all be equal: set the kafka partitions setting to the count of the existing topics, ")
          .append("or increase the partitions of the topics to ")
          .append(expected)
          .append('.');
      throw new ConfigException(msg.toString());
    }
  }

  /**
   * Describes the topics; a topic created a moment ago may not be known to every broker yet, so
   * "unknown topic" is retried until the deadline before it counts as missing.
   */
  private Map<String, TopicDescription> describe(Admin admin, List<String> names) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (true) {
      try {
        return admin.describeTopics(names).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        boolean unknown = e.getCause() instanceof UnknownTopicOrPartitionException;
        // Only a topic this process has just created can be late; without creation, missing is
        // missing.
        if (!unknown || !config.createTopics() || System.nanoTime() > deadline) {
          throw new ConfigException(
              "cannot describe the topics "
                  + names
                  + " on "
                  + config.kafka().bootstrapServers()
                  + " ("
                  + e.getCause().getMessage()
                  + "); create them with "
                  + config.kafka().partitions()
                  + " partitions each (the chart's kafka.strimzi.createTopics declares them all), or enable topic "
                  + "creation");
        }
        pause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while describing topics", e);
      } catch (TimeoutException e) {
        throw new IllegalStateException(
            "Kafka at "
                + config.kafka().bootstrapServers()
                + " did not describe the "
                + "topics within "
                + TIMEOUT_SECONDS
                + " s; check --kafka-bootstrap-servers (NE_KAFKA_BOOTSTRAP_SERVERS) "
                + "and the client's TLS/SASL properties",
            e);
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(RETRY_BACKOFF_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for topic metadata", e);
    }
  }
}
