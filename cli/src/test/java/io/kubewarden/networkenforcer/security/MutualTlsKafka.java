package io.kubewarden.networkenforcer.security;

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
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A broker as the chart's default Kafka client configuration expects one: both listeners TLS with a
 * client certificate required, an authorizer that denies what no ACL allows, each component {@code
 * User:CN=<component>} with exactly its {@link TopicAccess} row. Clients get the {@code
 * <component>.properties} the chart renders, with the pod's mount directory moved to a temporary
 * one holding what cert-manager writes (PKCS#1 RSA key, {@code ca.crt} next to it).
 */
final class MutualTlsKafka implements AutoCloseable {
  /** Where the chart mounts the Kafka files in the pods. */
  static final String POD_DIR = "/etc/network-enforcer/kafka";

  static final String APPLICATION_ID = "network-enforcer-processor";
  static final String WRITER_GROUPS = "network-enforcer-writer";

  /** The broker's own identity, its super user: sets up topics and ACLs and reads what landed. */
  static final String ADMIN = "broker";

  private final Manifests chart;
  private final Path dir;
  private final TestCertificates ca;
  private final EmbeddedKafkaBroker broker;

  private MutualTlsKafka(
      Manifests chart, Path dir, TestCertificates ca, EmbeddedKafkaBroker broker) {
    this.chart = chart;
    this.dir = dir;
    this.ca = ca;
    this.broker = broker;
  }

  static MutualTlsKafka start(Manifests chart, Path dir) throws Exception {
    TestCertificates ca = TestCertificates.newCa("kafka-ca");
    Path certs =
        ca.issue(
            dir.resolve("broker-server"), ADMIN, List.of("localhost"), List.of("127.0.0.1"), true);
    EmbeddedKafkaBroker broker =
        EmbeddedKafkaBroker.builder()
            .config("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:SSL")
            .config("ssl.client.auth", "required")
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
            .config("super.users", "User:CN=" + ADMIN)
            .config("allow.everyone.if.no.acl.found", "false")
            .build()
            .start();
    return new MutualTlsKafka(chart, dir, ca, broker);
  }

  /**
   * Creates the topic sets (and the processor's loop topic) as an administrator or Strimzi's
   * KafkaTopics would, no component may create a shared topic, and gives each component its ACLs on
   * every set; returns once the authorizer applies them.
   */
  void declare(Topics... sets) throws Exception {
    try (Admin admin = Admin.create(client(ADMIN))) {
      List<NewTopic> topics = new ArrayList<>();
      for (Topics set : sets) {
        for (Topic<?, ?> topic : set.all()) {
          topics.add(new NewTopic(topic.name(), 1, (short) 1));
        }
        admin.createAcls(TopicAccess.ingest("User:CN=ingest", set)).all().get();
        admin
            .createAcls(TopicAccess.processor("User:CN=processor", set, APPLICATION_ID))
            .all()
            .get();
        admin.createAcls(TopicAccess.writer("User:CN=writer", set, WRITER_GROUPS)).all().get();
      }
      topics.add(new NewTopic(APPLICATION_ID + "-deny-reattribution", 1, (short) 1));
      admin.createTopics(topics).all().get();
    }
    // The broker's authorizer learns the ACLs from the metadata log a moment after they are
    // committed.
    String own = sets[0].deadLetter().name();
    for (String component : List.of("ingest", "processor", "writer")) {
      try (Admin a = Admin.create(client(component))) {
        await(component + "'s ACLs in effect")
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> a.describeTopics(List.of(own)).allTopicNames().get().size() == 1);
      }
    }
  }

  String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /**
   * The directory that stands for the pod's {@link #POD_DIR} of that component ({@code ingest},
   * {@code processor}, {@code writer}, or {@link #ADMIN}): its certificate of this broker's CA.
   */
  Path mount(String component) throws Exception {
    return files(component, ca, component, component.equals(ADMIN) ? "ingest" : component);
  }

  /** The component's rendered properties as a client of the test uses them (brokers set). */
  Properties client(String component) {
    try {
      return properties(mount(component), component.equals(ADMIN) ? "ingest" : component);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The chart's {@code <component>.properties} with a certificate named {@code CN=<component>} of
   * another CA, trusting this broker's: what someone who made up a CA could present.
   */
  Properties forged(String component) throws Exception {
    Path root =
        files("forged-" + component, TestCertificates.newCa("another-ca"), component, component);
    Properties p = properties(root, component);
    p.put("ssl.truststore.location", client(component).getProperty("ssl.truststore.location"));
    return p;
  }

  private Properties properties(Path root, String chartComponent) throws Exception {
    Properties p = new Properties();
    try (Reader in =
        Files.newBufferedReader(root.resolve("config").resolve(chartComponent + ".properties"))) {
      p.load(in);
    }
    p.put("bootstrap.servers", broker.bootstrapServers());
    return p;
  }

  /**
   * Writes, once per name, what the pod would have under the chart's Kafka mount: the rendered
   * properties file and the certificate cert-manager would issue.
   */
  private synchronized Path files(
      String name, TestCertificates issuer, String commonName, String chartComponent)
      throws Exception {
    Path root = dir.resolve("kafka-" + name);
    if (Files.isDirectory(root)) {
      return root;
    }
    Path credentials =
        issuer.issue(root.resolve("credentials"), commonName, List.of(), List.of(), true);
    assertThat(Files.readString(credentials.resolve("tls.key")))
        .startsWith("-----BEGIN RSA PRIVATE KEY-----");
    String rendered =
        chart
            .get("ConfigMap", HelmChart.FULLNAME + "-kafka-client")
            .path("data")
            .path(chartComponent + ".properties")
            .asText();
    assertThat(rendered).contains("security.protocol=SSL");
    Path config = Files.createDirectories(root.resolve("config"));
    Files.writeString(
        config.resolve(chartComponent + ".properties"), rendered.replace(POD_DIR, root.toString()));
    return root;
  }

  @Override
  public void close() {
    broker.close();
  }
}
