package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.TopicAccess;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.CertManagerKeys;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's default Kafka client configuration, as rendered, against a broker that requires a
 * client certificate and authorizes by its subject: each component's {@code <component>.properties}
 * with its own certificate and key in cert-manager's shape (PKCS#1 RSA, {@code ca.crt} next to
 * them) connects as {@code User:CN=<component>} and may do exactly its {@link TopicAccess} row; a
 * certificate of another CA, or none, gets nowhere.
 */
class ChartKafkaMutualTlsTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  /**
   * Where the chart mounts the Kafka files in the pod; here a temporary directory per component.
   */
  private static final String POD_DIR = "/etc/network-enforcer/kafka";

  static EmbeddedKafkaBroker broker;
  static Ca ca;

  /** The chart with its default Kafka values (only the brokers' address set). */
  static Manifests chart;

  @TempDir static Path dir;

  @BeforeAll
  static void start() throws Exception {
    chart = HelmChart.render(values("mode", "distributed", "kafka.bootstrapServers", "kafka:9093"));
    ca = new Ca("kafka-test-ca");
    KeyPair brokerKeys = rsa();
    X509Certificate brokerCert = ca.sign("CN=broker", brokerKeys, true);
    String pkcs8 = pem("PRIVATE KEY", brokerKeys.getPrivate().getEncoded());
    // Both listeners TLS with client certificates; the broker is its own super user by its subject.
    broker =
        EmbeddedKafkaBroker.builder()
            .config("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:SSL")
            .config("ssl.client.auth", "required")
            .config("ssl.keystore.type", "PEM")
            .config("ssl.keystore.certificate.chain", pem(brokerCert))
            .config("ssl.keystore.key", pkcs8)
            .config("ssl.truststore.type", "PEM")
            .config("ssl.truststore.certificates", pem(ca.certificate))
            .config(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .config("super.users", "User:CN=broker")
            .config("allow.everyone.if.no.acl.found", "false")
            .build()
            .start();
    try (Admin admin = Admin.create(admin())) {
      List<NewTopic> topics = new ArrayList<>();
      for (Topic<?, ?> topic : TOPICS.all()) {
        topics.add(new NewTopic(topic.name(), 1, (short) 1));
      }
      admin.createTopics(topics).all().get();
      admin.createAcls(TopicAccess.ingest("User:CN=ingest", TOPICS)).all().get();
      admin
          .createAcls(TopicAccess.writer("User:CN=writer", TOPICS, "network-enforcer-writer"))
          .all()
          .get();
    }
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @Test
  void theChartsDefaultPropertiesAuthenticateEachComponentByItsCertificate() throws Exception {
    Properties ingest = mounted("ingest", ca);
    Properties writer = mounted("writer", ca);
    // The broker's authorizer learns the ACLs from the metadata log a moment after they are
    // committed.
    await("ACLs in effect")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              send(producer(ingest), TOPICS.flows().name());
              return true;
            });
    send(producer(writer), TOPICS.policies().name());

    Map<String, Boolean> attempts = new LinkedHashMap<>();
    attempts.put(
        "ingest writes policies",
        refused(ingest, TOPICS.policies().name(), TopicAuthorizationException.class));
    attempts.put(
        "writer writes flows",
        refused(writer, TOPICS.flows().name(), TopicAuthorizationException.class));
    // The same properties with a certificate of another CA, named like ingest: the broker does not
    // trust it.
    Properties forged = mounted("forged", new Ca("another-ca"));
    forged.put("ssl.truststore.location", ingest.getProperty("ssl.truststore.location"));
    attempts.put(
        "another CA's ingest writes flows",
        refused(forged, TOPICS.flows().name(), SslAuthenticationException.class));
    Properties noCertificate = new Properties();
    noCertificate.putAll(ingest);
    noCertificate.keySet().removeIf(k -> k.toString().startsWith("ssl.keystore"));
    attempts.put(
        "no certificate writes flows",
        refused(noCertificate, TOPICS.flows().name(), SslAuthenticationException.class));
    long refused = attempts.values().stream().filter(r -> r).count();
    System.out.println(
        "kafka mTLS, chart defaults: attempts refused: " + refused + " of " + attempts.size());
    assertThat(attempts).allSatisfy((what, wasRefused) -> assertThat(wasRefused).as(what).isTrue());
  }

  /**
   * The component's properties file as the chart renders it by default, with the pod's mount
   * directory moved to a temporary one holding what cert-manager's Certificate would write.
   */
  private static Properties mounted(String component, Ca issuer) throws Exception {
    String chartComponent = component.equals("forged") ? "ingest" : component;
    Path root = dir.resolve(component);
    Path credentials = Files.createDirectories(root.resolve("credentials"));
    KeyPair keys = rsa();
    Files.writeString(
        credentials.resolve("tls.crt"), pem(issuer.sign("CN=" + chartComponent, keys, false)));
    Files.writeString(credentials.resolve("tls.key"), CertManagerKeys.pem(keys.getPrivate()));
    Files.writeString(credentials.resolve("ca.crt"), pem(issuer.certificate));
    assertThat(Files.readString(credentials.resolve("tls.key")))
        .startsWith("-----BEGIN RSA PRIVATE KEY-----");
    Properties p = new Properties();
    String rendered =
        chart
            .get("ConfigMap", FULLNAME + "-kafka-client")
            .path("data")
            .path(chartComponent + ".properties")
            .asText();
    assertThat(rendered).contains("security.protocol=SSL");
    p.load(new StringReader(rendered.replace(POD_DIR, root.toString())));
    p.put("bootstrap.servers", broker.bootstrapServers());
    return p;
  }

  private static boolean refused(Properties p, String topic, Class<? extends Throwable> expected) {
    try (KafkaProducer<byte[], byte[]> producer = producer(p)) {
      send(producer, topic);
      return false;
    } catch (ExecutionException e) {
      return expected.isInstance(e.getCause());
    } catch (org.apache.kafka.common.KafkaException e) {
      return expected.isInstance(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, String topic)
      throws ExecutionException, InterruptedException {
    try (producer) {
      producer.send(new ProducerRecord<>(topic, "k".getBytes(), "v".getBytes())).get();
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(Properties base) {
    Properties p = new Properties();
    p.putAll(base);
    p.put("max.block.ms", "5000");
    p.put("delivery.timeout.ms", "5000");
    p.put("request.timeout.ms", "4000");
    p.put("linger.ms", "0");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** The broker's own identity: super user, for setting up topics and ACLs. */
  private static Properties admin() throws Exception {
    KeyPair keys = rsa();
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("security.protocol", "SSL");
    p.put("ssl.keystore.type", "PEM");
    p.put("ssl.keystore.certificate.chain", pem(ca.sign("CN=broker", keys, false)));
    p.put("ssl.keystore.key", pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.certificates", pem(ca.certificate));
    return p;
  }

  /** A throw-away CA issuing RSA certificates valid for a day. */
  private static final class Ca {
    final KeyPair keys = rsa();
    final X509Certificate certificate;
    final X500Name name;

    Ca(String commonName) throws Exception {
      name = new X500Name("CN=" + commonName);
      var builder =
          new JcaX509v3CertificateBuilder(
              name,
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              notBefore(),
              notAfter(),
              name,
              keys.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      certificate = convert(builder, keys.getPrivate());
    }

    X509Certificate sign(String subject, KeyPair subjectKeys, boolean server) throws Exception {
      var builder =
          new JcaX509v3CertificateBuilder(
              name,
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              notBefore(),
              notAfter(),
              new X500Name(subject),
              subjectKeys.getPublic());
      if (server) {
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                new GeneralName[] {
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                  new GeneralName(GeneralName.dNSName, "localhost")
                }));
      }
      return convert(builder, keys.getPrivate());
    }

    private static X509Certificate convert(JcaX509v3CertificateBuilder builder, PrivateKey signer)
        throws Exception {
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(signer)));
    }

    private static Date notBefore() {
      return Date.from(Instant.now().minus(Duration.ofMinutes(5)));
    }

    private static Date notAfter() {
      return Date.from(Instant.now().plus(Duration.ofDays(1)));
    }
  }

  private static KeyPair rsa() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(X509Certificate certificate) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(certificate);
    }
    return out.toString();
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
