package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.RecordDecodeException;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.writer.Backoff;
import io.kubewarden.networkenforcer.writer.DeadLetters;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's loop over the proposals topic. An offset is committed only after its record was
 * applied (or sent to the dead-letter topic); an API failure rewinds to the failed record and
 * backs off.
 */
public final class ProposalConsumer implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ProposalConsumer.class);

  private final Consumer<String, byte[]> consumer;
  private final Topic<String, ProposalSnapshot> topic;
  private final ProposalApplier applier;
  private final DeadLetters deadLetters;
  private final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean running = true;

  public ProposalConsumer(Consumer<String, byte[]> consumer, Topic<String, ProposalSnapshot> topic,
      ProposalApplier applier, DeadLetters deadLetters) {
    this.consumer = consumer;
    this.topic = topic;
    this.applier = applier;
    this.deadLetters = deadLetters;
  }

  @Override
  public void run() {
    JsonSerde<ProposalSnapshot> serde = (JsonSerde<ProposalSnapshot>) topic.valueSerde();
    try {
      consumer.subscribe(List.of(topic.name()));
      while (running) {
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        boolean failed = false;
        for (TopicPartition tp : records.partitions()) {
          for (ConsumerRecord<String, byte[]> r : records.records(tp)) {
            try {
              applier.apply(r.key(), serde.read(r.topic(), r.value()));
            } catch (RecordDecodeException | InvalidProposalException e) {
              try {
                deadLetters.send(r, e.getMessage(), e);
              } catch (RuntimeException dlq) {
                LOG.warn("cannot park proposal {} on the dead-letter topic: {}; will retry", r.key(), dlq.getMessage());
                consumer.seek(tp, r.offset());
                failed = true;
                break;
              }
            } catch (NotLeaderException e) {
              throw e;
            } catch (RuntimeException e) {
              LOG.warn("cannot apply proposal {} (offset {}): {}; will retry", r.key(), r.offset(), e.toString());
              consumer.seek(tp, r.offset());
              failed = true;
              break;
            }
            done.put(tp, new OffsetAndMetadata(r.offset() + 1));
          }
        }
        if (!done.isEmpty()) {
          try {
            consumer.commitSync(done);
          } catch (WakeupException e) {
            throw e;
          } catch (RuntimeException e) {
            // Applying is idempotent: records read again after a rebalance do no harm.
            LOG.warn("cannot commit proposal offsets {}: {}", done, e.toString());
          }
        }
        if (failed) {
          // Other partitions' records after a failure are re-read too: rewind them to their last commit point.
          for (TopicPartition tp : records.partitions()) {
            if (done.containsKey(tp)) {
              consumer.seek(tp, done.get(tp).offset());
            } else if (!records.records(tp).isEmpty()) {
              consumer.seek(tp, records.records(tp).get(0).offset());
            }
          }
          if (stopped.await(backoff.next().toMillis(), TimeUnit.MILLISECONDS)) {
            return;
          }
        } else if (!records.isEmpty()) {
          backoff.reset();
        }
      }
    } catch (WakeupException | NotLeaderException e) {
      LOG.info("proposal consumer stopping: {}", e.getMessage() == null ? "woken up" : e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      consumer.close();
    }
  }

  /** Stops at once; what was not applied is not committed. */
  public void stop() {
    running = false;
    stopped.countDown();
    consumer.wakeup();
  }
}
