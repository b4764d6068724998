package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.crd.MergedOffset;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.RecordDecodeException;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.observations.Principals;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's loop over the violations topic: it feeds the desired state of the policies' status.
 * Each observation is sent as an OpenTelemetry event at once (unless the policy's status says it is
 * merged already: a re-read after a hand-over) and buffered; every status interval the buffered
 * policies are queued for their reconciler, and offsets are committed up to what the reconcilers
 * wrote.
 *
 * <p>Events and hand-overs: an event is sent when its record is first read. A writer that crashes
 * after sending but before the status write that contains the record (at most one status interval)
 * leaves the record uncommitted; the next leader reads it again and sends the event a second time,
 * with the same {@code log.record.uid}. Records already merged are never sent again.
 */
public final class ViolationConsumer implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ViolationConsumer.class);

  private final org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer;
  private final Topic<String, ViolationObservation> topic;
  private final ViolationBuffer buffer;
  private final ClusterCache cache;
  private final Consumer<String> requestSync;
  private final ViolationEvents events;
  private final DeadLetters deadLetters;
  private final Duration interval;
  private final int maxBuffered;
  private final MeterRegistry meters;
  private final Clock clock;
  private final AtomicInteger buffered;

  /**
   * Per partition, the offset after the last record whose event this consumer sent. A partition
   * lost or revoked before the status holds its records (a broker hung past the session timeout, a
   * rebalance) is read again from its committed offset: the records are merged then, but their
   * events were sent already. Only this consumer's: a new leader cannot know, which is crash window
   * (1) of the README.
   */
  private final Map<TopicPartition, Long> eventsSentUpTo = new HashMap<>();

  private volatile boolean running = true;
  private boolean paused;

  /**
   * @param requestSync queues a policy ({@code ns/name}) for its reconciler
   * @param buffered the service's gauge of observations waiting for a status write
   */
  public ViolationConsumer(
      org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer,
      Topic<String, ViolationObservation> topic,
      ViolationBuffer buffer,
      ClusterCache cache,
      Consumer<String> requestSync,
      ViolationEvents events,
      DeadLetters deadLetters,
      Duration interval,
      int maxBuffered,
      MeterRegistry meters,
      Clock clock,
      AtomicInteger buffered) {
    this.consumer = consumer;
    this.topic = topic;
    this.buffer = buffer;
    this.cache = cache;
    this.requestSync = requestSync;
    this.events = events;
    this.deadLetters = deadLetters;
    this.interval = interval;
    this.maxBuffered = maxBuffered;
    this.meters = meters;
    this.clock = clock;
    this.buffered = buffered;
  }

  @Override
  public void run() {
    JsonSerde<ViolationObservation> serde = (JsonSerde<ViolationObservation>) topic.valueSerde();
    try {
      consumer.subscribe(
          List.of(topic.name()),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              buffer.dropPartitions(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
              buffer.dropPartitions(partitions);
            }
          });
      Instant nextSync = clock.instant().plus(interval);
      while (running) {
        long wait =
            Math.max(10, Math.min(200, Duration.between(clock.instant(), nextSync).toMillis()));
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(wait));
        for (TopicPartition tp : records.partitions()) {
          for (ConsumerRecord<String, byte[]> r : records.records(tp)) {
            if (!take(tp, r, serde)) {
              // Could not park a bad record on the dead-letter topic: read it again next poll.
              consumer.seek(tp, r.offset());
              break;
            }
          }
        }
        if (!clock.instant().isBefore(nextSync)) {
          buffer.markAllDue().forEach(requestSync);
          nextSync = clock.instant().plus(interval);
        }
        applyBackPressure();
        buffered.set(buffer.size());
        commit();
      }
    } catch (WakeupException | NotLeaderException e) {
      buffered.set(0);
      LOG.info(
          "violation consumer stopping with {} unwritten observations left uncommitted",
          buffer.size());
    } finally {
      consumer.close();
    }
  }

  /** Buffers one record and sends its event; false when it must be read again. */
  private boolean take(
      TopicPartition tp, ConsumerRecord<String, byte[]> r, JsonSerde<ViolationObservation> serde) {
    ViolationObservation o;
    try {
      o = serde.read(r.topic(), r.value());
    } catch (RecordDecodeException e) {
      return park(tp, r, e.getMessage(), e);
    }
    if (o == null) {
      buffer.skip(tp, r.offset());
      return true;
    }
    var problem = ViolationCheck.problem(r.key(), o);
    if (problem.isPresent()) {
      return park(tp, r, "not a countable violation: " + problem.get(), null);
    }
    if (mergedAlready(o.policyKey(), tp, r.offset())) {
      meters.counter("network.enforcer.writer.violations.already.merged").increment();
      buffer.skip(tp, r.offset());
      return true;
    }
    o = Principals.withoutScheme(o);
    meters.counter("network.enforcer.writer.violations.consumed").increment(o.observations());
    if (r.offset() >= eventsSentUpTo.getOrDefault(tp, 0L)) {
      events.observed(new SourcedObservation(tp.topic(), tp.partition(), r.offset(), o));
      eventsSentUpTo.put(tp, r.offset() + 1);
    } else {
      meters.counter("network.enforcer.writer.violations.reread").increment();
    }
    buffer.add(tp, r.offset(), o);
    return true;
  }

  /** A record that cannot be counted to the dead-letter topic; false when it could not be sent. */
  private boolean park(
      TopicPartition tp, ConsumerRecord<String, byte[]> r, String reason, Throwable error) {
    try {
      deadLetters.send(r, reason, error);
    } catch (RuntimeException dlq) {
      LOG.warn("cannot park violation record {}@{}: {}", tp, r.offset(), dlq.getMessage());
      return false;
    }
    buffer.skip(tp, r.offset());
    return true;
  }

  /** The cached status already counts this record (its watermark is past it). */
  private boolean mergedAlready(String policyKey, TopicPartition tp, long offset) {
    int slash = policyKey.indexOf('/');
    if (slash < 0) {
      return false;
    }
    WorkloadNetworkPolicy wnp =
        cache.policy(policyKey.substring(0, slash), policyKey.substring(slash + 1)).orElse(null);
    if (wnp == null || wnp.getStatus() == null || wnp.getStatus().getMergedOffsets() == null) {
      return false;
    }
    for (MergedOffset m : wnp.getStatus().getMergedOffsets()) {
      if (tp.topic().equals(m.getTopic()) && tp.partition() == m.getPartition()) {
        return offset < m.getOffset();
      }
    }
    return false;
  }

  private void commit() {
    Map<TopicPartition, OffsetAndMetadata> offsets = buffer.committable();
    if (offsets.isEmpty() || !running) {
      return;
    }
    try {
      consumer.commitSync(offsets);
      buffer.committed(offsets);
    } catch (WakeupException e) {
      throw e;
    } catch (RuntimeException e) {
      // Not fatal: the records are re-read on a hand-over and skipped by the status watermark.
      LOG.warn("cannot commit violation offsets {}: {}", offsets, e.toString());
    }
  }

  /** Too much unwritten (API server down for long): stop reading until the status catches up. */
  private void applyBackPressure() {
    if (!paused && buffer.size() >= maxBuffered) {
      consumer.pause(consumer.assignment());
      paused = true;
      LOG.warn(
          "{} violation observations wait for a status write; consumption paused", buffer.size());
    } else if (paused && buffer.size() < maxBuffered / 2) {
      consumer.resume(consumer.paused());
      paused = false;
      LOG.info("violation consumption resumed");
    }
  }

  /** Stops at once; nothing unwritten is committed. */
  public void stop() {
    running = false;
    consumer.wakeup();
  }
}
