package io.kubewarden.networkenforcer.common.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.testing.CertManagerKeys;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.provider.DirectoryConfigProvider;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Kafka client's key from a Secret as cert-manager writes it (PKCS#1 RSA, SEC1 EC), read by a
 * real Kafka client's PEM key store through the chart's properties: the stock provider fails, ours
 * works.
 */
class PemKeyDirectoryConfigProviderTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"RSA", "EC"})
  void aKafkaClientReadsACertManagerKeyThroughTheProvider(String algorithm) throws Exception {
    KeyPair keys = keys(algorithm);
    Files.writeString(dir.resolve("tls.key"), CertManagerKeys.pem(keys.getPrivate()));
    Files.writeString(dir.resolve("tls.crt"), selfSigned(keys));
    Files.writeString(dir.resolve("password"), "not-a-key");
    assertThat(Files.readString(dir.resolve("tls.key")))
        .startsWith(
            algorithm.equals("RSA")
                ? "-----BEGIN RSA PRIVATE KEY-----"
                : "-----BEGIN EC PRIVATE KEY-----");

    // Kafka's own reader takes PKCS#8 only: the stock provider hands the file on as it is.
    assertThatThrownBy(() -> producer(DirectoryConfigProvider.class).close())
        .isInstanceOf(KafkaException.class);
    producer(PemKeyDirectoryConfigProvider.class).close();

    try (PemKeyDirectoryConfigProvider provider = new PemKeyDirectoryConfigProvider()) {
      provider.configure(Map.of("allowed.paths", dir.toString()));
      Map<String, String> data =
          provider.get(dir.toString(), Set.of("tls.key", "tls.crt", "password")).data();
      assertThat(data.get("tls.key")).startsWith("-----BEGIN PRIVATE KEY-----");
      PrivateKey handedOn = PemKeys.parse(data.get("tls.key").getBytes(StandardCharsets.US_ASCII));
      if (keys.getPrivate() instanceof ECPrivateKey ec) {
        // The same secret; the SEC1 form carried inside PKCS#8 keeps the curve it named.
        assertThat(((ECPrivateKey) handedOn).getS()).isEqualTo(ec.getS());
      } else {
        assertThat(handedOn.getEncoded()).isEqualTo(keys.getPrivate().getEncoded());
      }
      assertThat(data.get("tls.crt")).isEqualTo(Files.readString(dir.resolve("tls.crt")));
      assertThat(data.get("password")).isEqualTo("not-a-key");
    }
  }

  /**
   * A producer configured as the chart's client.properties does; building it loads the key store.
   */
  private KafkaProducer<byte[], byte[]> producer(Class<?> provider) {
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:1");
    p.put("config.providers", "dir");
    p.put("config.providers.dir.class", provider.getName());
    p.put("config.providers.dir.param.allowed.paths", dir.toString());
    p.put("security.protocol", "SSL");
    p.put("ssl.keystore.type", "PEM");
    p.put("ssl.keystore.certificate.chain", "${dir:" + dir + ":tls.crt}");
    p.put("ssl.keystore.key", "${dir:" + dir + ":tls.key}");
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.certificates", "${dir:" + dir + ":tls.crt}");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static KeyPair keys(String algorithm) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
    if (algorithm.equals("EC")) {
      g.initialize(new ECGenParameterSpec("secp256r1"));
    } else {
      g.initialize(2048);
    }
    return g.generateKeyPair();
  }

  private static String selfSigned(KeyPair keys) throws Exception {
    Instant now = Instant.now();
    X500Name name = new X500Name("CN=network-enforcer-kafka-client");
    var cert =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        name,
                        BigInteger.valueOf(now.toEpochMilli()),
                        Date.from(now.minus(Duration.ofMinutes(5))),
                        Date.from(now.plus(Duration.ofDays(1))),
                        name,
                        keys.getPublic())
                    .build(
                        new JcaContentSignerBuilder(
                                keys.getPrivate().getAlgorithm().equals("RSA")
                                    ? "SHA256withRSA"
                                    : "SHA256withECDSA")
                            .build(keys.getPrivate())));
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(cert);
    }
    return out.toString();
  }
}
