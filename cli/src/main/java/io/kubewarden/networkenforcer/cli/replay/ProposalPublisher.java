package io.kubewarden.networkenforcer.cli.replay;

import io.kubewarden.networkenforcer.cli.history.TimeWindow;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.IdempotentWrites;
import io.kubewarden.networkenforcer.common.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * {@code replay --publish}: writes rebuilt proposals to the live proposals topic, each marked with
 * the window it was learned from (the {@value Labels#REPLAYED_FROM} annotation the writer puts on
 * the WNPP, and the same value as a record header), so a reviewer knows where it came from. The
 * writer applies them as it applies learned ones (and skips targets that have a policy).
 */
final class ProposalPublisher {
  private final KafkaSettings kafka;

  ProposalPublisher(KafkaSettings kafka) {
    this.kafka = kafka;
  }

  /** The proposal as published: annotated with the window. */
  static ProposalSnapshot annotated(ProposalSnapshot p, TimeWindow window) {
    return p.withAnnotations(Map.of(Labels.REPLAYED_FROM, window.toString()));
  }

  int publish(Map<String, ProposalSnapshot> proposals, TimeWindow window) {
    Topic<String, ProposalSnapshot> topic = kafka.topics().proposals();
    Properties p = kafka.clientConfig();
    IdempotentWrites.apply(p);
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<String, ProposalSnapshot> producer =
        new KafkaProducer<>(p, topic.keySerde().serializer(), topic.valueSerde().serializer())) {
      proposals.forEach(
          (key, proposal) -> {
            ProducerRecord<String, ProposalSnapshot> record =
                new ProducerRecord<>(topic.name(), key, annotated(proposal, window));
            record
                .headers()
                .add(Labels.REPLAYED_FROM, window.toString().getBytes(StandardCharsets.UTF_8));
            sent.add(producer.send(record));
          });
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot publish to " + topic.name() + ": " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while publishing proposals", e);
    }
    return sent.size();
  }
}
