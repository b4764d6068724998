package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.learning.LearnedAllowList;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.kubewarden.networkenforcer.processor.topology.StoreNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.UnknownStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Tells when the offline pipeline has finished with everything published to it, from Kafka's own
 * bookkeeping rather than from waiting: (1) the processor's consumer group has committed the end
 * of every input topic, checked in data-flow order (flows, then the observations repartition
 * topic, then the re-attribution loop), so nothing is in flight between two stages; (2) no learned
 * allow-list holds evidence that the punctuator has not yet published; (3) the proposals topic
 * holds every snapshot the processor says it wrote (at-least-once writes are flushed before the
 * offsets they belong to are committed).
 */
public final class PipelineDrain {
  private static final String PROCESSOR_METRICS = "network_enforcer.processor.";

  private final Admin admin;
  private final String groupId;
  private final List<String> inputsInOrder;
  private final String proposalsTopic;
  private final MeterRegistry registry;

  /** How far the processor has come: flow records consumed of those published. */
  public record Progress(long flowsConsumed, long flowsPublished, boolean done) {}

  private static final long POLL_MILLIS = 50;

  /** The drain of the processor running {@code config}: its input topics in data-flow order. */
  public static PipelineDrain of(Admin admin, ProcessorConfig config, MeterRegistry registry) {
    return new PipelineDrain(admin, config.applicationId(), List.of(config.topics().flows().name(),
        NetworkEnforcerTopology.observationsRepartitionTopic(config), config.reattributionTopic()),
        config.topics().proposals().name(), registry);
  }

  public PipelineDrain(Admin admin, String groupId, List<String> inputsInOrder, String proposalsTopic,
      MeterRegistry registry) {
    this.admin = admin;
    this.groupId = groupId;
    this.inputsInOrder = List.copyOf(inputsInOrder);
    this.proposalsTopic = proposalsTopic;
    this.registry = registry;
  }

  /**
   * Waits until {@code streams} runs, then until the pipeline is drained, telling {@code onProgress}
   * after each check; fails when the processor stops or {@code timeout} passes.
   *
   * @param input what the flows came from, for the timeout message ("captures", "windows")
   */
  public void await(KafkaStreams streams, Duration timeout, String input, Consumer<Progress> onProgress)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (streams.state() != KafkaStreams.State.RUNNING) {
      failIfStopped(streams);
      checkDeadline(deadline, timeout, "the stream processor did not start");
      Thread.sleep(POLL_MILLIS);
    }
    while (true) {
      failIfStopped(streams);
      Progress p = check(streams);
      onProgress.accept(p);
      if (p.done()) {
        return;
      }
      checkDeadline(deadline, timeout, "processing did not finish (" + p.flowsConsumed() + " of "
          + p.flowsPublished() + " flows consumed); raise --timeout for large " + input);
      Thread.sleep(POLL_MILLIS);
    }
  }

  private static void failIfStopped(KafkaStreams streams) {
    KafkaStreams.State s = streams.state();
    if (s == KafkaStreams.State.ERROR || s == KafkaStreams.State.NOT_RUNNING
        || s == KafkaStreams.State.PENDING_ERROR) {
      throw new IllegalStateException("the stream processor stopped (" + s + "); see the log above");
    }
  }

  private static void checkDeadline(long deadline, Duration timeout, String what) {
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException(what + " within " + timeout.toSeconds() + " s");
    }
  }

  public Progress check(KafkaStreams streams) {
    Map<TopicPartition, OffsetAndMetadata> committed = get(admin.listConsumerGroupOffsets(groupId)
        .partitionsToOffsetAndMetadata());
    long flowsConsumed = 0;
    long flowsPublished = 0;
    boolean allConsumed = true;
    for (int i = 0; i < inputsInOrder.size(); i++) {
      Map<TopicPartition, Long> end = endOffsets(inputsInOrder.get(i));
      long consumed = 0;
      long total = 0;
      for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
        OffsetAndMetadata c = committed.get(e.getKey());
        long at = c == null ? 0 : c.offset();
        consumed += Math.min(at, e.getValue());
        total += e.getValue();
        allConsumed &= at >= e.getValue();
      }
      if (i == 0) {
        flowsConsumed = consumed;
        flowsPublished = total;
      }
      if (!allConsumed) {
        return new Progress(flowsConsumed, flowsPublished, false);
      }
      // Consumed flows may still wait in the combiner before they reach the repartition topic.
      if (i == 0 && combinationsWaiting(streams)) {
        return new Progress(flowsConsumed, flowsPublished, false);
      }
      // Later stages are only read after the earlier ones are known to be consumed.
      if (i + 1 < inputsInOrder.size()) {
        committed = get(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata());
      }
    }
    boolean done = !unpublishedEvidence(streams) && proposalsWritten() >= proposalsCounted();
    return new Progress(flowsConsumed, flowsPublished, done);
  }

  private boolean combinationsWaiting(KafkaStreams streams) {
    try {
      ReadOnlyKeyValueStore<Bytes, byte[]> store = streams.store(StoreQueryParameters
          .fromNameAndType(StoreNames.COMBINER, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
      try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
        return all.hasNext();
      }
    } catch (UnknownStateStoreException e) {
      // A topology without a combiner (combine interval 0).
      return false;
    } catch (InvalidStateStoreException e) {
      // Rebalancing or restoring: ask again on the next check.
      return true;
    }
  }

  private boolean unpublishedEvidence(KafkaStreams streams) {
    try {
      ReadOnlyKeyValueStore<String, LearnedAllowList> store = streams.store(StoreQueryParameters
          .fromNameAndType(StoreNames.LEARNED, QueryableStoreTypes.<String, LearnedAllowList>keyValueStore()));
      try (KeyValueIterator<String, LearnedAllowList> all = store.all()) {
        while (all.hasNext()) {
          KeyValue<String, LearnedAllowList> e = all.next();
          if (e.value != null && e.value.evidenceDirty()) {
            return true;
          }
        }
      }
      return false;
    } catch (InvalidStateStoreException e) {
      // Rebalancing or restoring: ask again on the next check.
      return true;
    }
  }

  private long proposalsWritten() {
    return endOffsets(proposalsTopic).values().stream().mapToLong(Long::longValue).sum();
  }

  private long proposalsCounted() {
    return Math.round(count("proposals.emitted") + count("evidence.flushed") + count("proposals.reset"));
  }

  private double count(String name) {
    return registry.find(PROCESSOR_METRICS + name).counters().stream().mapToDouble(Counter::count).sum();
  }

  private Map<TopicPartition, Long> endOffsets(String topic) {
    var description = get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    List<TopicPartition> partitions = new ArrayList<>();
    description.partitions().forEach(p -> {
      TopicPartition tp = new TopicPartition(topic, p.partition());
      partitions.add(tp);
      request.put(tp, OffsetSpec.latest());
    });
    Map<TopicPartition, Long> out = new HashMap<>();
    get(admin.listOffsets(request).all()).forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
    try {
      return future.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("the embedded Kafka did not answer: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("the embedded Kafka did not answer within 30 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
