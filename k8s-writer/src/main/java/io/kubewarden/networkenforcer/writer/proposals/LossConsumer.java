package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.RecordDecodeException;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's reader of {@code data-plane-loss}: every partition from its beginning, without a
 * consumer group, into the session's {@link LossLedger}. Reading it all each session is what makes
 * the counts exact across hand-overs (nothing is committed, nothing is merged twice), and the topic
 * is small: one record per node and ingest window with loss. {@link #catchUp} reads up to the end
 * before proposals are reconciled, so no proposal is shown converged for the moment between a
 * leader start and its reading of the loss; {@link #run} then follows and, after records with loss,
 * has every proposal looked at again: at once for the first, then at most once per {@code
 * lookInterval} (the status interval), so a data plane that loses events all the time does not
 * rewrite every proposal's status with every window. The hold is the same for every proposal, so
 * one look at all of them when it ends (a quiet period after the last loss, on the writer's clock)
 * lifts it: no timer per proposal.
 */
public final class LossConsumer implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(LossConsumer.class);

  private final Consumer<String, byte[]> consumer;
  private final Topic<String, DataPlaneLoss> topic;
  private final LossLedger ledger;
  private final Runnable onLoss;
  private final DeadLetters deadLetters;
  private final Duration lookInterval;
  private final Clock clock;
  private volatile boolean running = true;

  public LossConsumer(
      Consumer<String, byte[]> consumer,
      Topic<String, DataPlaneLoss> topic,
      LossLedger ledger,
      Runnable onLoss,
      DeadLetters deadLetters,
      Duration lookInterval,
      Clock clock) {
    this.lookInterval = lookInterval;
    this.clock = clock;
    this.consumer = consumer;
    this.topic = topic;
    this.ledger = ledger;
    this.onLoss = onLoss;
    this.deadLetters = deadLetters;
  }

  /** Assigns every partition from the beginning and reads up to the end offsets of now. */
  public void catchUp(Duration timeout) throws TimeoutException {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic.name(), timeout).stream()
            .map(p -> new TopicPartition(p.topic(), p.partition()))
            .toList();
    if (partitions.isEmpty()) {
      running = false;
      LOG.warn(
          "topic {} does not exist: lost events of the data plane do not hold proposals back; create it "
              + "(the chart's kafka.strimzi.createTopics declares it, or enable topic creation)",
          topic.name());
      return;
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
    long deadline = System.nanoTime() + timeout.toNanos();
    int read = 0;
    while (end.entrySet().stream()
        .anyMatch(e -> consumer.position(e.getKey(), timeout) < e.getValue())) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(
            "could not read " + topic.name() + " to its end within " + timeout);
      }
      read += take(consumer.poll(Duration.ofMillis(200)));
    }
    LOG.info("read {} loss records of {}", read, topic.name());
  }

  @Override
  public void run() {
    long lastLook = System.nanoTime() - lookInterval.toNanos();
    boolean pending = false;
    Instant liftedAt = null;
    try {
      while (running) {
        pending |= take(consumer.poll(Duration.ofMillis(200))) > 0;
        Instant holdEnds = ledger.latestLoss().map(t -> t.plus(ledger.quietPeriod())).orElse(null);
        if (holdEnds != null && !holdEnds.equals(liftedAt) && !clock.instant().isBefore(holdEnds)) {
          liftedAt =
              holdEnds; // a quiet period without loss has passed: Converged may be true again
          pending = true;
          lastLook = System.nanoTime() - lookInterval.toNanos();
        }
        if (pending && System.nanoTime() - lastLook >= lookInterval.toNanos()) {
          onLoss.run();
          lastLook = System.nanoTime();
          pending = false;
        }
      }
    } catch (WakeupException e) {
      LOG.debug("loss consumer stopping");
    } finally {
      consumer.close();
    }
  }

  /** Adds the records with loss to the ledger; unreadable ones go to the dead-letter topic. */
  private int take(ConsumerRecords<String, byte[]> records) {
    @SuppressWarnings("unchecked")
    JsonSerde<DataPlaneLoss> serde = (JsonSerde<DataPlaneLoss>) topic.valueSerde();
    int taken = 0;
    for (ConsumerRecord<String, byte[]> r : records) {
      if (r.value() == null) {
        continue;
      }
      try {
        DataPlaneLoss loss = serde.read(r.topic(), r.value());
        LossCheck.problem(loss, clock.instant())
            .ifPresent(
                p -> {
                  throw new IllegalArgumentException(p);
                });
        ledger.add(loss);
        taken++;
      } catch (RecordDecodeException | IllegalArgumentException e) {
        try {
          deadLetters.send(r, "not a loss record: " + e.getMessage(), e);
        } catch (RuntimeException dlq) {
          LOG.warn(
              "cannot park loss record {}-{}@{}: {}",
              r.topic(),
              r.partition(),
              r.offset(),
              dlq.getMessage());
        }
      }
    }
    return taken;
  }

  /** Stops at once; nothing was committed, so nothing is lost. */
  public void stop() {
    running = false;
    consumer.wakeup();
  }
}
