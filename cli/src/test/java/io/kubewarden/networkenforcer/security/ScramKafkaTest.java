package io.kubewarden.networkenforcer.security;

import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.chart.HelmChart;
import io.kubewarden.networkenforcer.chart.Manifests;
import io.kubewarden.networkenforcer.common.tls.PemKeys;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.TopicAccess;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The chart's SASL/SCRAM client configuration ({@code kafka.authentication} {@code scram-sha-512}
 * or {@code scram-sha-256}) against a real broker: a SASL_SSL listener, SCRAM users created through
 * the Admin API under the names the chart renders, an authorizer that denies what no ACL allows and
 * each user's {@link TopicAccess} row (the chart README's ACL table). Each component's client uses
 * the {@code <component>.properties} the chart renders, with the pod's mount directory moved to a
 * temporary one holding what its Secrets would (the password, the brokers' CA): ingest writes
 * {@code flows} and is refused on {@code policies}, the writer writes {@code policies} and is
 * refused on {@code flows}, ingest's user with a wrong password is refused at authentication.
 */
class ScramKafkaTest {
  /** Where the chart mounts the Kafka files in the pods. */
  private static final String POD_DIR = "/etc/network-enforcer/kafka";

  /** The broker's own identity (PLAIN, inter-broker only): sets up users, topics and ACLs. */
  private static final String BROKER = "broker";

  private static final String BROKER_PASSWORD = "broker-secret";
  private static final List<String> COMPONENTS = List.of("ingest", "processor", "writer");

  @TempDir static Path dir;

  static TestCertificates ca;
  static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void start() throws Exception {
    ca = TestCertificates.newCa("kafka-ca");
    Path certs =
        ca.issue(
            dir.resolve("broker-server"), BROKER, List.of("localhost"), List.of("127.0.0.1"), true);
    String plain =
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"%s\""
                .formatted(BROKER)
            + " password=\"%s\" user_%s=\"%s\";"
                .formatted(BROKER_PASSWORD, BROKER, BROKER_PASSWORD);
    String scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;";
    broker =
        EmbeddedKafkaBroker.builder()
            // Clients: SASL over TLS. The controller listener stays on loopback with PLAIN: KRaft
            // keeps SCRAM credentials in its metadata log, so it cannot authenticate its own
            // quorum with them.
            .config(
                "listener.security.protocol.map", "PLAINTEXT:SASL_SSL,CONTROLLER:SASL_PLAINTEXT")
            .config(
                "listener.name.plaintext.sasl.enabled.mechanisms",
                "SCRAM-SHA-512,SCRAM-SHA-256,PLAIN")
            .config("listener.name.controller.sasl.enabled.mechanisms", "PLAIN")
            .config("sasl.mechanism.inter.broker.protocol", "PLAIN")
            .config("sasl.mechanism.controller.protocol", "PLAIN")
            .config("listener.name.plaintext.plain.sasl.jaas.config", plain)
            .config("listener.name.plaintext.scram-sha-512.sasl.jaas.config", scram)
            .config("listener.name.plaintext.scram-sha-256.sasl.jaas.config", scram)
            .config("listener.name.controller.plain.sasl.jaas.config", plain)
            .config("ssl.keystore.type", "PEM")
            .config("ssl.keystore.certificate.chain", Files.readString(certs.resolve("tls.crt")))
            // Kafka's PEM key store reads PKCS#8 only.
            .config(
                "ssl.keystore.key",
                new String(
                    PemKeys.toPkcs8Pem(Files.readAllBytes(certs.resolve("tls.key"))),
                    StandardCharsets.US_ASCII))
            .config("ssl.truststore.type", "PEM")
            .config("ssl.truststore.certificates", ca.caPem())
            .config(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .config("super.users", "User:" + BROKER)
            .config("allow.everyone.if.no.acl.found", "false")
            .build()
            .start();
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"scram-sha-512", "scram-sha-256"})
  void theChartsScramClientsWriteTheirTopicsOnly(String authentication) throws Exception {
    Manifests chart =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9093",
                "kafka.authentication",
                authentication,
                "kafka.tls.caSecret.name",
                "kafka-cluster-ca-cert"));
    ScramMechanism mechanism =
        ScramMechanism.fromMechanismName(authentication.toUpperCase(Locale.ROOT));
    // Topics of their own per mechanism: what landed is counted for this run alone.
    Topics topics = new Topics(authentication + ".");
    Map<String, Properties> clients = new LinkedHashMap<>();
    List<UserScramCredentialAlteration> users = new ArrayList<>();
    for (String component : COMPONENTS) {
      Properties rendered = rendered(chart, component);
      assertThat(rendered.getProperty("security.protocol")).isEqualTo("SASL_SSL");
      assertThat(rendered.getProperty("sasl.mechanism")).isEqualTo(mechanism.mechanismName());
      String user = username(rendered);
      assertThat(user).isEqualTo(HelmChart.FULLNAME + "-kafka-" + component);
      String password = component + "-" + authentication + "-secret";
      users.add(
          new UserScramCredentialUpsertion(
              user, new ScramCredentialInfo(mechanism, 8192), password));
      clients.put(component, client(rendered, component + "-" + authentication, password));
    }
    String ingestUser = username(rendered(chart, "ingest"));
    String writerUser = username(rendered(chart, "writer"));
    String processorUser = username(rendered(chart, "processor"));
    try (Admin admin = Admin.create(brokerClient())) {
      admin.alterUserScramCredentials(users).all().get();
      List<NewTopic> declared = new ArrayList<>();
      for (Topic<?, ?> topic : topics.all()) {
        declared.add(new NewTopic(topic.name(), 1, (short) 1));
      }
      admin.createTopics(declared).all().get();
      admin.createAcls(TopicAccess.ingest("User:" + ingestUser, topics)).all().get();
      admin
          .createAcls(
              TopicAccess.processor("User:" + processorUser, topics, MutualTlsKafka.APPLICATION_ID))
          .all()
          .get();
      admin
          .createAcls(
              TopicAccess.writer("User:" + writerUser, topics, MutualTlsKafka.WRITER_GROUPS))
          .all()
          .get();
    }
    // The users and ACLs reach the broker's authenticator and authorizer a moment after they are
    // committed to the metadata log.
    for (String component : COMPONENTS) {
      try (Admin a = Admin.create(clients.get(component))) {
        await(component + "'s user and ACLs in effect")
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(
                () ->
                    a.describeTopics(List.of(topics.deadLetter().name()))
                            .allTopicNames()
                            .get()
                            .size()
                        == 1);
      }
    }

    ThreatLedger ledger = new ThreatLedger();
    String row = "components -> Kafka, " + mechanism.mechanismName();
    ledger.legitimate(
        row, "ingest writes flows", "written", write(clients.get("ingest"), topics.flows()));
    ledger.legitimate(
        row, "writer writes policies", "written", write(clients.get("writer"), topics.policies()));
    ledger.attack(
        row,
        "ingest writes policies",
        "TopicAuthorizationException",
        write(clients.get("ingest"), topics.policies()));
    ledger.attack(
        row,
        "writer writes flows",
        "TopicAuthorizationException",
        write(clients.get("writer"), topics.flows()));
    Properties wrongPassword =
        client(rendered(chart, "ingest"), "ingest-guessed-" + authentication, "guessed");
    ledger.attack(
        row,
        "ingest's user with a wrong password writes flows",
        "SaslAuthenticationException",
        write(wrongPassword, topics.flows()));

    System.out.println(
        "kafka ("
            + mechanism.mechanismName()
            + ", the chart's properties): "
            + ledger.summary().replace("threat model: ", ""));
    assertThat(ledger.observed()).containsExactlyElementsOf(ledger.expected());
    assertThat(ledger.refused()).isEqualTo(ledger.attempts()).isEqualTo(3);
    assertThat(ledger.accepted()).isEqualTo(ledger.legitimateCalls()).isEqualTo(2);

    // Exactly the two legitimate records landed; nothing of any refused attempt.
    try (KafkaConsumer<byte[], byte[]> admin =
        new KafkaConsumer<>(
            brokerClient(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          topics.all().stream().map(t -> new TopicPartition(t.name(), 0)).toList();
      Map<String, Long> landed = new LinkedHashMap<>();
      admin
          .endOffsets(partitions, Duration.ofSeconds(30))
          .forEach(
              (p, end) -> {
                if (end > 0) {
                  landed.put(p.topic(), end);
                }
              });
      assertThat(landed)
          .containsOnly(
              Map.entry(topics.flows().name(), 1L), Map.entry(topics.policies().name(), 1L));
    }
  }

  private static String write(Properties client, Topic<?, ?> topic) {
    try (KafkaProducer<byte[], byte[]> producer = KafkaAttempts.producer(client)) {
      KafkaAttempts.send(producer, topic.name());
      return "written";
    } catch (Exception e) {
      Throwable cause = e.getCause() != null && !(e instanceof RuntimeException) ? e.getCause() : e;
      return cause.getClass().getSimpleName();
    }
  }

  /** The {@code <component>.properties} of the chart's Kafka client ConfigMap. */
  private static Properties rendered(Manifests chart, String component) throws Exception {
    Properties p = new Properties();
    p.load(
        new StringReader(
            chart
                .get("ConfigMap", HelmChart.FULLNAME + "-kafka-client")
                .path("data")
                .path(component + ".properties")
                .asText()));
    return p;
  }

  private static String username(Properties rendered) {
    String jaas = rendered.getProperty("sasl.jaas.config");
    int start = jaas.indexOf("username=\"") + "username=\"".length();
    return jaas.substring(start, jaas.indexOf('"', start));
  }

  /**
   * The rendered properties with the pod's mount directory moved to {@code dir/<name>}, holding
   * what the pod mounts there: the password from the component's Secret ({@code
   * credentials/password}) and the brokers' CA ({@code ca/ca.crt}); the brokers of this test.
   */
  private static Properties client(Properties rendered, String name, String password)
      throws Exception {
    Path root = dir.resolve("pod-" + name);
    Files.createDirectories(root.resolve("credentials"));
    Files.createDirectories(root.resolve("ca"));
    // As the kubelet projects a Secret key: the bytes, no newline added.
    Files.writeString(root.resolve("credentials").resolve("password"), password);
    Files.writeString(root.resolve("ca").resolve("ca.crt"), ca.caPem());
    Properties p = new Properties();
    rendered.forEach((k, v) -> p.put(k.toString(), v.toString().replace(POD_DIR, root.toString())));
    assertThat(p.getProperty("ssl.truststore.location"))
        .isEqualTo(root.resolve("ca").resolve("ca.crt").toString());
    p.put("bootstrap.servers", broker.bootstrapServers());
    return p;
  }

  /** The broker's own identity over the same SASL_SSL listener. */
  private static Properties brokerClient() throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("security.protocol", "SASL_SSL");
    p.put("sasl.mechanism", "PLAIN");
    p.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + BROKER
            + "\" password=\""
            + BROKER_PASSWORD
            + "\";");
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.certificates", ca.caPem());
    return p;
  }
}
