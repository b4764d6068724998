package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.RecordDecodeException;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.Backoff;
import io.kubewarden.networkenforcer.writer.DeadLetters;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's loop over the violations topic: each observation is sent as an OpenTelemetry event
 * at once and buffered; every status interval the buffer is merged into the policies' status, and
 * offsets are committed only up to what is written. A crash or hand-over re-reads the rest.
 * {@code buffered} is the service's gauge of observations waiting for a status write.
 */
public final class ViolationConsumer implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ViolationConsumer.class);

  private final Consumer<String, byte[]> consumer;
  private final Topic<String, ViolationObservation> topic;
  private final StatusSync sync;
  private final ViolationEvents events;
  private final DeadLetters deadLetters;
  private final Duration interval;
  private final int maxBuffered;
  private final MeterRegistry meters;
  private final Clock clock;
  private final ViolationBuffer buffer = new ViolationBuffer();
  private final Backoff backoff;
  private final AtomicInteger buffered;
  private volatile boolean running = true;
  private boolean paused;

  public ViolationConsumer(Consumer<String, byte[]> consumer, Topic<String, ViolationObservation> topic,
      StatusSync sync, ViolationEvents events, DeadLetters deadLetters, Duration interval, int maxBuffered,
      MeterRegistry meters, Clock clock, AtomicInteger buffered) {
    this.consumer = consumer;
    this.topic = topic;
    this.sync = sync;
    this.events = events;
    this.deadLetters = deadLetters;
    this.interval = interval;
    this.maxBuffered = maxBuffered;
    this.meters = meters;
    this.clock = clock;
    this.backoff = new Backoff(interval, Duration.ofMinutes(5).compareTo(interval) > 0 ? Duration.ofMinutes(5)
        : interval);
    this.buffered = buffered;
  }

  @Override
  public void run() {
    JsonSerde<ViolationObservation> serde = (JsonSerde<ViolationObservation>) topic.valueSerde();
    try {
      consumer.subscribe(List.of(topic.name()), new ConsumerRebalanceListener() {
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
        long wait = Math.max(10, Math.min(200, Duration.between(clock.instant(), nextSync).toMillis()));
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
        applyBackPressure();
        buffered.set(buffer.size());
        if (!clock.instant().isBefore(nextSync)) {
          boolean ok = sync.syncAll(buffer);
          commit();
          if (ok) {
            backoff.reset();
            nextSync = clock.instant().plus(interval);
          } else {
            nextSync = clock.instant().plus(backoff.next());
          }
        }
      }
    } catch (WakeupException | NotLeaderException e) {
      buffered.set(0);
      LOG.info("violation consumer stopping with {} unwritten observations left uncommitted", buffer.size());
    } finally {
      consumer.close();
    }
  }

  /** Buffers one record and sends its event; false when it must be read again. */
  private boolean take(TopicPartition tp, ConsumerRecord<String, byte[]> r, JsonSerde<ViolationObservation> serde) {
    ViolationObservation o;
    try {
      o = serde.read(r.topic(), r.value());
    } catch (RecordDecodeException e) {
      try {
        deadLetters.send(r, e.getMessage(), e);
      } catch (RuntimeException dlq) {
        LOG.warn("cannot park unreadable violation {}@{}: {}", tp, r.offset(), dlq.getMessage());
        return false;
      }
      buffer.skip(tp, r.offset());
      return true;
    }
    if (o == null) {
      buffer.skip(tp, r.offset());
      return true;
    }
    meters.counter("network.enforcer.writer.violations.consumed").increment(o.count());
    events.observed(o);
    buffer.add(tp, r.offset(), o);
    return true;
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
      // Not fatal: the records are re-read on a hand-over and merged again (at least once).
      LOG.warn("cannot commit violation offsets {}: {}", offsets, e.toString());
    }
  }

  /** Too much unwritten (API server down for long): stop reading until the status catches up. */
  private void applyBackPressure() {
    if (!paused && buffer.size() >= maxBuffered) {
      consumer.pause(consumer.assignment());
      paused = true;
      LOG.warn("{} violation observations wait for a status write; consumption paused", buffer.size());
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
