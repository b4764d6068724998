package io.kubewarden.networkenforcer.security;

import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

  /**
   * Everything a client without a principal of ours (no credentials, a wrong password, a
   * certificate the brokers do not trust) could aim at: every topic of {@code topics}, the
   * processor's internal topics {@code internal} (named by its application id prefix), each written
   * and read, and the offsets of every consumer group of the product. Returns, per attempt ({@code
   * "<who> writes <topic>"}, {@code "<who> reads <topic>"}, {@code "<who> reads group <group>"}),
   * the simple name of the exception the client got, or what it managed ({@code written}, {@code
   * read}). One fresh client per attempt, all at once: a plain-text client on an authenticated
   * listener is only answered by its own timeout (5 s), so one after another would take minutes.
   */
  static Map<String, String> everywhere(
      String who, Properties client, Topics topics, List<String> internal, List<String> groups)
      throws Exception {
    Map<String, Callable<String>> attempts = new LinkedHashMap<>();
    List<String> names = new ArrayList<>();
    topics.all().forEach(t -> names.add(t.name()));
    names.addAll(internal);
    for (String topic : names) {
      attempts.put(who + " writes " + topic, () -> writeOutcome(client, topic));
      attempts.put(who + " reads " + topic, () -> read(client, topic, null));
    }
    for (String group : groups) {
      attempts.put(who + " reads group " + group, () -> read(client, topics.flows().name(), group));
    }
    ExecutorService pool = Executors.newFixedThreadPool(attempts.size());
    try {
      Map<String, Future<String>> running = new LinkedHashMap<>();
      attempts.forEach((what, attempt) -> running.put(what, pool.submit(attempt)));
      Map<String, String> outcomes = new LinkedHashMap<>();
      for (Map.Entry<String, Future<String>> e : running.entrySet()) {
        outcomes.put(e.getKey(), e.getValue().get(60, TimeUnit.SECONDS));
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  private static String writeOutcome(Properties client, String topic) {
    try (KafkaProducer<byte[], byte[]> producer = producer(client)) {
      producer.send(new ProducerRecord<>(topic, "k".getBytes(), "forged".getBytes())).get();
      return "written";
    } catch (ExecutionException e) {
      return e.getCause().getClass().getSimpleName();
    } catch (KafkaException e) {
      return e.getClass().getSimpleName();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * Without a group: the partition's offsets, the first answer any read needs. With one: the
   * group's committed offsets (OffsetFetch, which needs READ on the group as joining it does).
   * {@code read} when answered: what a principal allowed to read gets, the tests' control.
   */
  static String read(Properties base, String topic, String group) {
    Properties p = new Properties();
    p.putAll(base);
    p.put("request.timeout.ms", "4000");
    p.put("default.api.timeout.ms", "5000");
    if (group != null) {
      p.put("group.id", group);
    }
    TopicPartition partition = new TopicPartition(topic, 0);
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      if (group == null) {
        c.assign(List.of(partition));
        c.position(partition, Duration.ofSeconds(5));
      } else {
        c.committed(Set.of(partition), Duration.ofSeconds(5));
      }
      return "read";
    } catch (KafkaException e) {
      return e.getClass().getSimpleName();
    }
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
