package io.kubewarden.networkenforcer.security;

import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a client with a component's credentials tries beyond its ACLs, and how the broker answers:
 * shared by the tests that run a broker with an authorizer, whatever authenticates the principal
 * (SASL or a client certificate).
 */
final class KafkaAttempts {
  private KafkaAttempts() {}

  /**
   * Each principal one step beyond its {@code TopicAccess} row on {@code topics}: writes to topics
   * of another component and reads of a topic it has no READ on; true where the broker refused with
   * an authorization error. {@code client} gives the principal's client properties (ingest,
   * processor, writer).
   */
  static Map<String, Boolean> beyondEachRow(Function<String, Properties> client, Topics topics) {
    Map<String, List<Topic<?, ?>>> foreignWrites = new LinkedHashMap<>();
    foreignWrites.put(
        "ingest",
        List.of(
            topics.policies(),
            topics.control(),
            topics.nativePolicies(),
            topics.proposals(),
            topics.violations()));
    foreignWrites.put(
        "processor",
        List.of(topics.flows(), topics.policies(), topics.control(), topics.nativePolicies()));
    foreignWrites.put(
        "writer",
        List.of(topics.flows(), topics.proposals(), topics.violations(), topics.dataPlaneLoss()));
    Map<String, Boolean> attempts = new LinkedHashMap<>();
    foreignWrites.forEach(
        (principal, foreign) -> {
          try (KafkaProducer<byte[], byte[]> producer = producer(client.apply(principal))) {
            for (Topic<?, ?> topic : foreign) {
              attempts.put(
                  principal + " writes " + topic.name(), writeRefused(producer, topic.name()));
            }
          }
        });
    attempts.put(
        "ingest reads " + topics.policies().name(),
        readRefused(client.apply("ingest"), topics.policies().name()));
    attempts.put(
        "writer reads " + topics.flows().name(),
        readRefused(client.apply("writer"), topics.flows().name()));
    attempts.put(
        "processor reads " + topics.violations().name(),
        readRefused(client.apply("processor"), topics.violations().name()));
    return attempts;
  }

  /** A consumer on a partition it was given no READ for: refused at the first fetch. */
  static boolean readRefused(Properties client, String topic) {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(client, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.assign(List.of(new TopicPartition(topic, 0)));
      c.seekToBeginning(c.assignment());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(500));
      }
      return false;
    } catch (TopicAuthorizationException e) {
      return true;
    }
  }

  static boolean writeRefused(KafkaProducer<byte[], byte[]> producer, String topic) {
    return sendFailure(producer, topic) instanceof TopicAuthorizationException;
  }

  /** Why one record to {@code topic} was not written; an accepted write fails the test. */
  static Throwable sendFailure(KafkaProducer<byte[], byte[]> producer, String topic) {
    try {
      producer.send(new ProducerRecord<>(topic, "k".getBytes(), "forged".getBytes())).get();
      throw new AssertionError("a write to " + topic + " was accepted");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (KafkaException e) {
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Writes one record, failing on any refusal. */
  static void send(KafkaProducer<byte[], byte[]> producer, String topic) throws Exception {
    producer.send(new ProducerRecord<>(topic, "k".getBytes(), "v".getBytes())).get();
  }

  /** A producer that gives up within seconds: a refusal, not a hang, is what the tests wait for. */
  static KafkaProducer<byte[], byte[]> producer(Properties base) {
    Properties p = new Properties();
    p.putAll(base);
    p.put("max.block.ms", "5000");
    p.put("delivery.timeout.ms", "5000");
    p.put("request.timeout.ms", "4000");
    p.put("linger.ms", "0");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }
}
