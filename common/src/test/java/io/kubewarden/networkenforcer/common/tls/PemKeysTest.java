package io.kubewarden.networkenforcer.common.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.Test;

/** The key forms Secrets hold, written by BouncyCastle (as openssl would) and read with the JDK. */
class PemKeysTest {
  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }

  private static PrivateKey read(String pem) throws IOException {
    return PemKeys.parse(pem.getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void readsPkcs1Pkcs8AndSec1Keys() throws Exception {
    KeyPairGenerator rsaGen = KeyPairGenerator.getInstance("RSA");
    rsaGen.initialize(2048);
    KeyPair rsa = rsaGen.generateKeyPair();
    KeyPairGenerator ecGen = KeyPairGenerator.getInstance("EC");
    ecGen.initialize(new ECGenParameterSpec("secp384r1"));
    KeyPair ec = ecGen.generateKeyPair();

    String pkcs1 = pem(rsa.getPrivate());
    assertThat(pkcs1).contains("BEGIN RSA PRIVATE KEY");
    assertThat(read(pkcs1).getEncoded()).isEqualTo(rsa.getPrivate().getEncoded());

    String sec1 = pem(ec.getPrivate());
    assertThat(sec1).contains("BEGIN EC PRIVATE KEY");
    PrivateKey fromSec1 =
        read("-----BEGIN EC PARAMETERS-----\nBgUrgQQAIg==\n-----END EC PARAMETERS-----\n" + sec1);
    assertThat(fromSec1.getAlgorithm()).isEqualTo("EC");
    assertThat(((ECPrivateKey) fromSec1).getS()).isEqualTo(((ECPrivateKey) ec.getPrivate()).getS());
    assertThatThrownBy(() -> read(sec1)).hasMessageContaining("does not name its curve");

    String pkcs8 = pem(new JcaPKCS8Generator(ec.getPrivate(), null));
    assertThat(pkcs8).contains("BEGIN PRIVATE KEY");
    assertThat(read(pkcs8).getEncoded()).isEqualTo(ec.getPrivate().getEncoded());

    assertThatThrownBy(() -> read("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))
        .hasMessageContaining("CERTIFICATE is not an unencrypted private key");
    // What gRPC, OpenTelemetry and Kafka can read: the same key as PKCS#8.
    String converted =
        new String(
            PemKeys.toPkcs8Pem(pkcs1.getBytes(StandardCharsets.US_ASCII)),
            StandardCharsets.US_ASCII);
    assertThat(converted)
        .startsWith("-----BEGIN PRIVATE KEY-----\n")
        .endsWith("-----END PRIVATE KEY-----\n");
    assertThat(read(converted).getEncoded()).isEqualTo(rsa.getPrivate().getEncoded());

    assertThatThrownBy(() -> read("garbage")).hasMessageContaining("no unencrypted private key");
  }
}
