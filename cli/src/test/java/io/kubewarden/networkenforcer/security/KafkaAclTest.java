package io.kubewarden.networkenforcer.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.TopicAccess;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real broker with authentication on every listener (SASL) and an authorizer that denies what no
 * ACL allows, with ingest's ACLs from {@link TopicAccess}: ingest's principal writes {@code flows},
 * and is refused on {@code policies} and every other topic it has no business writing; a client
 * without credentials, or with a wrong password, is refused everywhere.
 */
class KafkaAclTest {
  private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
      + "username=\"%s\" password=\"%s\"%s;";
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void start() throws Exception {
    String users = " user_admin=\"admin-secret\" user_ingest=\"ingest-secret\"";
    String brokerJaas = JAAS.formatted("admin", "admin-secret", users);
    broker = EmbeddedKafkaBroker.builder()
        .config("listener.security.protocol.map", "PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT")
        .config("sasl.enabled.mechanisms", "PLAIN")
        .config("sasl.mechanism.inter.broker.protocol", "PLAIN")
        .config("sasl.mechanism.controller.protocol", "PLAIN")
        .config("listener.name.plaintext.plain.sasl.jaas.config", brokerJaas)
        .config("listener.name.controller.plain.sasl.jaas.config", brokerJaas)
        .config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        .config("super.users", "User:admin")
        .config("allow.everyone.if.no.acl.found", "false")
        .build().start();
    try (Admin admin = Admin.create(client("admin", "admin-secret"))) {
      List<NewTopic> topics = new ArrayList<>();
      for (Topic<?, ?> topic : all()) {
        topics.add(new NewTopic(topic.name(), 1, (short) 1));
      }
      admin.createTopics(topics).all().get();
      admin.createAcls(TopicAccess.ingest("User:ingest", TOPICS)).all().get();
    }
    // The broker's authorizer learns the ACLs from the metadata log a moment after they are committed.
    try (Admin ingest = Admin.create(client("ingest", "ingest-secret"))) {
      await("ingest's ACLs in effect").atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
          ingest.describeTopics(List.of(TOPICS.flows().name(), TOPICS.dataPlaneLoss().name(),
              TOPICS.deadLetter().name())).allTopicNames().get().size() == 3);
    }
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @Test
  void ingestWritesFlowsOnlyAndNobodyElseWritesAtAll() throws Exception {
    int attempts = 0;
    int refused = 0;
    try (KafkaProducer<byte[], byte[]> ingest = producer(client("ingest", "ingest-secret"))) {
      // Its own topics: accepted.
      for (Topic<?, ?> own : List.of(TOPICS.flows(), TOPICS.dataPlaneLoss(), TOPICS.deadLetter())) {
        ingest.send(new ProducerRecord<>(own.name(), "k".getBytes(), "v".getBytes())).get();
      }
      // What only the writer and the processor write: refused.
      for (Topic<?, ?> foreign : List.of(TOPICS.policies(), TOPICS.control(), TOPICS.nativePolicies(),
          TOPICS.proposals(), TOPICS.violations())) {
        attempts++;
        Throwable cause = sendFailure(ingest, foreign.name());
        assertThat(cause).as("ingest on %s", foreign.name()).isInstanceOf(TopicAuthorizationException.class);
        refused++;
      }
    }
    for (Map.Entry<String, Properties> stranger : Map.of("anonymous", anonymous(),
        "a wrong password", client("ingest", "guessed")).entrySet()) {
      try (KafkaProducer<byte[], byte[]> producer = producer(stranger.getValue())) {
        for (Topic<?, ?> topic : List.of(TOPICS.flows(), TOPICS.policies(), TOPICS.control())) {
          attempts++;
          Throwable cause = sendFailure(producer, topic.name());
          assertThat(cause).as("%s on %s", stranger.getKey(), topic.name())
              .isInstanceOfAny(TimeoutException.class, SaslAuthenticationException.class);
          refused++;
        }
      }
    }
    System.out.println("kafka, foreign ACL and anonymous: attempts refused: " + refused + " of " + attempts);

    // Exactly ingest's three records landed, one per topic of its own; nothing anywhere else.
    try (KafkaConsumer<byte[], byte[]> admin = new KafkaConsumer<>(client("admin", "admin-secret"),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = all().stream().map(t -> new TopicPartition(t.name(), 0)).toList();
      Map<TopicPartition, Long> ends = admin.endOffsets(partitions, Duration.ofSeconds(30));
      assertThat(ends.entrySet().stream().filter(e -> e.getValue() > 0).map(e -> e.getKey().topic()))
          .containsExactlyInAnyOrder(TOPICS.flows().name(), TOPICS.dataPlaneLoss().name(), TOPICS.deadLetter().name());
      assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3);
    }
  }

  @Test
  void ingestCannotReadWhatItWrites() {
    Properties p = client("ingest", "ingest-secret");
    p.put("group.id", "ingest-snooping");
    try (KafkaConsumer<byte[], byte[]> ingest = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      ingest.assign(List.of(new TopicPartition(TOPICS.policies().name(), 0)));
      assertThatThrownBy(() -> {
        ConsumerRecords<byte[], byte[]> records = ingest.poll(Duration.ofSeconds(10));
        records.count();
      }).isInstanceOfAny(TopicAuthorizationException.class,
          org.apache.kafka.common.errors.GroupAuthorizationException.class);
    }
  }

  private static Throwable sendFailure(KafkaProducer<byte[], byte[]> producer, String topic) {
    try {
      producer.send(new ProducerRecord<>(topic, "k".getBytes(), "forged".getBytes())).get();
      throw new AssertionError("a write to " + topic + " was accepted");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (org.apache.kafka.common.KafkaException e) {
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static List<Topic<?, ?>> all() {
    return List.of(TOPICS.flows(), TOPICS.policies(), TOPICS.control(), TOPICS.proposals(), TOPICS.violations(),
        TOPICS.deadLetter(), TOPICS.nativePolicies(), TOPICS.dataPlaneLoss());
  }

  private static KafkaProducer<byte[], byte[]> producer(Properties p) {
    p.put("max.block.ms", "3000");
    p.put("delivery.timeout.ms", "3000");
    p.put("request.timeout.ms", "2500");
    p.put("linger.ms", "0");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static Properties client(String user, String password) {
    Properties p = anonymous();
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "PLAIN");
    p.put("sasl.jaas.config", JAAS.formatted(user, password, ""));
    return p;
  }

  /** No credentials at all: plain text to a listener that requires SASL. */
  private static Properties anonymous() {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    return p;
  }
}
