package io.kubewarden.networkenforcer.writer.telemetry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A CA with a loopback server certificate and a client certificate, written as PEM files. */
final class TestPki {
  final KeyPair caKeys = keys();
  final X509Certificate ca = sign("test-ca", caKeys.getPublic(), true, null);
  final KeyPair serverKeys = keys();
  final X509Certificate server =
      sign(
          "localhost",
          serverKeys.getPublic(),
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                new GeneralName(GeneralName.dNSName, "localhost")
              }));

  /** RSA, cert-manager's default algorithm (its key is written as PKCS#1). */
  final KeyPair clientKeys = rsaKeys();

  final X509Certificate client =
      sign("network-enforcer-writer", clientKeys.getPublic(), false, null);

  static KeyPair rsaKeys() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static KeyPair keys() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(256);
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private X509Certificate sign(String cn, PublicKey key, boolean isCa, GeneralNames sans) {
    try {
      Instant now = Instant.now();
      var b =
          new JcaX509v3CertificateBuilder(
              new X500Name("CN=test-ca"),
              BigInteger.valueOf(now.toEpochMilli() + cn.hashCode()),
              Date.from(now.minus(1, ChronoUnit.HOURS)),
              Date.from(now.plus(1, ChronoUnit.DAYS)),
              new X500Name("CN=" + cn),
              key);
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
      if (sans != null) {
        b.addExtension(Extension.subjectAlternativeName, false, sans);
      }
      PrivateKey signer = caKeys.getPrivate();
      return new JcaX509CertificateConverter()
          .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static Path writePem(Path dir, String file, String type, byte[] der) {
    String pem =
        "-----BEGIN "
            + type
            + "-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der)
            + "\n-----END "
            + type
            + "-----\n";
    try {
      return Files.writeString(dir.resolve(file), pem);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] der(X509Certificate c) {
    try {
      return c.getEncoded();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Server side: present the server certificate, require a client certificate signed by the CA. */
  SSLContext serverContext() {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry(
          "server", serverKeys.getPrivate(), new char[0], new X509Certificate[] {server, ca});
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, new char[0]);
      KeyStore ts = KeyStore.getInstance("PKCS12");
      ts.load(null, null);
      ts.setCertificateEntry("ca", ca);
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ts);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return ctx;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
