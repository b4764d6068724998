package io.kubewarden.networkenforcer.common.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the topics of a list that do not exist yet; existing topics are left as they are. Every
 * service that may start first (ingest, processor, writer, standalone, learn) uses this one way.
 */
public final class MissingTopics {
  private static final Logger LOG = LoggerFactory.getLogger(MissingTopics.class);

  private MissingTopics() {}

  /**
   * Waits until the leader of every partition of the topics just created serves it. The broker
   * announces a new partition's leader in its metadata a moment before its replica manager leads
   * it, so a producer that starts at once gets "not leader" for its first batch while the batches
   * behind it, pipelined on the same connection, land a moment later. The retried first batch
   * (sequence 0) is then refused as out of order for good, until the delivery timeout drops it: the
   * bench lost 1,257 of 50,000 flows that way. A leader that answers a ListOffsets request (served
   * by the replica manager, not the metadata) takes produce requests too.
   */
  static void awaitServed(Admin admin, List<String> names, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<TopicPartition, OffsetSpec> partitions = null;
    while (true) {
      long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
      try {
        if (partitions == null) {
          partitions = new HashMap<>();
          for (TopicDescription d :
              admin
                  .describeTopics(names)
                  .allTopicNames()
                  .get(left, TimeUnit.MILLISECONDS)
                  .values()) {
            for (TopicPartitionInfo p : d.partitions()) {
              partitions.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest());
            }
          }
        }
        admin.listOffsets(partitions).all().get(Math.min(left, 1_000), TimeUnit.MILLISECONDS);
        return;
      } catch (ExecutionException | TimeoutException e) {
        // Not known or not led yet: ask again.
      }
      if (System.nanoTime() > deadline) {
        // Producers retry on their own; a first batch may then be lost as described above.
        LOG.warn(
            "the partitions of {} were not served by a leader within {} s",
            names,
            timeout.toSeconds());
        return;
      }
      Thread.sleep(20);
    }
  }

  /**
   * Creates the missing ones among {@code wanted}. Another instance creating the same topic at the
   * same moment is fine; anything else fails with a message naming the Kafka at {@code where}.
   *
   * @return the names of the topics created
   */
  public static List<String> create(
      Admin admin, Collection<NewTopic> wanted, Duration timeout, String where) {
    try {
      Set<String> existing =
          admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      List<NewTopic> missing = new ArrayList<>();
      for (NewTopic topic : wanted) {
        if (!existing.contains(topic.name())) {
          missing.add(topic);
        }
      }
      List<String> names = missing.stream().map(NewTopic::name).toList();
      if (!missing.isEmpty()) {
        LOG.info("creating topics {}", names);
        admin.createTopics(missing).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        awaitServed(admin, names, timeout);
      }
      return names;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        return List.of();
      }
      throw new IllegalStateException(
          "cannot create the topics on " + where + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at "
              + where
              + " did not answer within "
              + timeout.toSeconds()
              + " s; check the bootstrap servers and the client properties",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }
}
