package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.RecordDecodeException;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectNames;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
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
 * The leader's loop over the proposals topic: it only feeds desired state. Each record becomes the
 * wish of its proposal's key and the key is queued; the proposal reconciler applies it. An offset
 * is committed once the reconciler is done with its record, so a failing proposal holds back its
 * own record only and never the records of other proposals.
 */
public final class ProposalConsumer implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ProposalConsumer.class);

  private final org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer;
  private final Topic<String, ProposalSnapshot> topic;
  private final DesiredProposals desired;
  private final Consumer<ObjectKey> enqueue;
  private final DeadLetters deadLetters;
  private volatile boolean running = true;

  public ProposalConsumer(
      org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer,
      Topic<String, ProposalSnapshot> topic,
      DesiredProposals desired,
      Consumer<ObjectKey> enqueue,
      DeadLetters deadLetters) {
    this.consumer = consumer;
    this.topic = topic;
    this.desired = desired;
    this.enqueue = enqueue;
    this.deadLetters = deadLetters;
  }

  @Override
  public void run() {
    JsonSerde<ProposalSnapshot> serde = (JsonSerde<ProposalSnapshot>) topic.valueSerde();
    try {
      consumer.subscribe(
          List.of(topic.name()),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              desired.dropPartitions(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
              desired.dropPartitions(partitions);
            }
          });
      while (running) {
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
        for (TopicPartition tp : records.partitions()) {
          for (ConsumerRecord<String, byte[]> r : records.records(tp)) {
            if (!take(tp, r, serde)) {
              consumer.seek(tp, r.offset());
              break;
            }
          }
        }
        commit();
      }
    } catch (WakeupException | NotLeaderException e) {
      LOG.info(
          "proposal consumer stopping with {} proposals not applied yet (left uncommitted)",
          desired.size());
    } finally {
      consumer.close();
    }
  }

  /** Records the wish of one record and queues its key; false when it must be read again. */
  private boolean take(
      TopicPartition tp, ConsumerRecord<String, byte[]> r, JsonSerde<ProposalSnapshot> serde) {
    ObjectKey key;
    ProposalSnapshot snapshot;
    try {
      snapshot = serde.read(r.topic(), r.value());
      key = keyOf(r.key(), snapshot);
    } catch (RecordDecodeException | IllegalArgumentException e) {
      try {
        deadLetters.send(r, e.getMessage(), e);
      } catch (RuntimeException dlq) {
        LOG.warn(
            "cannot park proposal record {}@{} on the dead-letter topic: {}",
            tp,
            r.offset(),
            dlq.getMessage());
        return false;
      }
      desired.skip(tp, r.offset());
      return true;
    }
    desired.put(key, new DesiredProposals.Desired(tp, r.offset(), snapshot, r));
    enqueue.accept(key);
    return true;
  }

  /**
   * A snapshot names its proposal; a tombstone's key is the target, whose proposal name is derived.
   */
  static ObjectKey keyOf(String recordKey, ProposalSnapshot snapshot) {
    if (snapshot != null) {
      if (snapshot.spec().getTargetRef() == null
          || snapshot.spec().getTargetRef().getKind() == null
          || snapshot.spec().getTargetRef().getName() == null
          || snapshot.spec().getDirection() == null) {
        throw new IllegalArgumentException(
            "proposal "
                + snapshot.namespace()
                + "/"
                + snapshot.name()
                + " has no complete spec.targetRef and spec.direction");
      }
      ObjectNames.problem("namespace", snapshot.namespace(), "name", snapshot.name())
          .ifPresent(
              p -> {
                throw new IllegalArgumentException("proposal record: " + p);
              });
      return new ObjectKey(snapshot.namespace(), snapshot.name());
    }
    if (recordKey == null) {
      throw new IllegalArgumentException("a proposal tombstone without a key");
    }
    try {
      TargetKey target = TargetKey.parse(recordKey);
      ObjectNames.problem(
              "key's namespace", target.namespace(), "key's proposal name", target.objectName())
          .ifPresent(
              p -> {
                throw new IllegalArgumentException(p);
              });
      return new ObjectKey(target.namespace(), target.objectName());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("tombstone key is not a target: " + e.getMessage(), e);
    }
  }

  private void commit() {
    Map<TopicPartition, OffsetAndMetadata> offsets = desired.committable();
    if (offsets.isEmpty() || !running) {
      return;
    }
    try {
      consumer.commitSync(offsets);
      desired.committed(offsets);
    } catch (WakeupException e) {
      throw e;
    } catch (RuntimeException e) {
      // Applying is idempotent: records read again after a rebalance do no harm.
      LOG.warn("cannot commit proposal offsets {}: {}", offsets, e.toString());
    }
  }

  /** Stops at once; what was not applied is not committed. */
  public void stop() {
    running = false;
    consumer.wakeup();
  }
}
