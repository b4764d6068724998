package io.kubewarden.networkenforcer.processor.progress;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/** A consumer group's committed offsets against the end of its topics, from Kafka's bookkeeping. */
final class TopicBacklog {
  private static final long ANSWER_SECONDS = 30;

  private final Admin admin;
  private final String groupId;

  /** Records of one topic: how many the group has committed of how many there are. */
  record Count(long consumed, long published, boolean complete) {}

  TopicBacklog(Admin admin, String groupId) {
    this.admin = admin;
    this.groupId = groupId;
  }

  Map<TopicPartition, OffsetAndMetadata> committed() {
    return get(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata());
  }

  /** {@code topic}'s records consumed by the group as of {@code committed}. */
  Count count(String topic, Map<TopicPartition, OffsetAndMetadata> committed) {
    long consumed = 0;
    long published = 0;
    boolean complete = true;
    for (Map.Entry<TopicPartition, Long> end : endOffsets(topic).entrySet()) {
      OffsetAndMetadata c = committed.get(end.getKey());
      long at = c == null ? 0 : c.offset();
      consumed += Math.min(at, end.getValue());
      published += end.getValue();
      complete &= at >= end.getValue();
    }
    return new Count(consumed, published, complete);
  }

  /** Records in {@code topic}: the sum of its partitions' end offsets. */
  long published(String topic) {
    return endOffsets(topic).values().stream().mapToLong(Long::longValue).sum();
  }

  private Map<TopicPartition, Long> endOffsets(String topic) {
    var description = get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    description
        .partitions()
        .forEach(p -> request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
    Map<TopicPartition, Long> out = new HashMap<>();
    get(admin.listOffsets(request).all()).forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  private static <T> T get(KafkaFuture<T> future) {
    try {
      return future.get(ANSWER_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "Kafka did not answer: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer within " + ANSWER_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
