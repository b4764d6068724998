package io.kubewarden.networkenforcer.common.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
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
   * Waits until every partition of the topics just created has a leader: a producer that writes to a
   * partition whose leader is not known yet gets "not leader", and a transactional producer's retried
   * first batch then comes after later ones, which the broker refuses as out of order and the
   * transaction aborts (a Kafka Streams task is then restored from scratch). Gives up quietly at the
   * deadline: producers retry on their own, this only spares them the first round.
   */
  static void awaitLeaders(Admin admin, List<String> names, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        boolean led = admin.describeTopics(names).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .values().stream().allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null
                && !p.leader().isEmpty()));
        if (led) {
          return;
        }
      } catch (ExecutionException | TimeoutException e) {
        // Not known everywhere yet: ask again.
      }
      Thread.sleep(50);
    }
    LOG.info("the topics {} have no leader for every partition yet; producers will retry", names);
  }

  /**
   * Creates the missing ones among {@code wanted}. Another instance creating the same topic at the
   * same moment is fine; anything else fails with a message naming the Kafka at {@code where}.
   *
   * @return the names of the topics created
   */
  public static List<String> create(Admin admin, Collection<NewTopic> wanted, Duration timeout, String where) {
    try {
      Set<String> existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
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
        awaitLeaders(admin, names, timeout);
      }
      return names;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        return List.of();
      }
      throw new IllegalStateException("cannot create the topics on " + where + ": " + e.getCause().getMessage(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka at " + where + " did not answer within " + timeout.toSeconds()
          + " s; check the bootstrap servers and the client properties", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }
}
