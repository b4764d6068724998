package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away CA and leaf certificates generated with BouncyCastle, written as the files a mounted
 * Kubernetes TLS Secret has ({@code tls.crt}, {@code tls.key}, {@code ca.crt}).
 */
public final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private final KeyPair caKeys;
  private final X509Certificate ca;

  private TestCertificates(KeyPair caKeys, X509Certificate ca) {
    this.caKeys = caKeys;
    this.ca = ca;
  }

  public static TestCertificates newCa(String name) throws Exception {
    KeyPair keys = ec();
    X500Name subject = new X500Name("CN=" + name);
    X509v3CertificateBuilder b = builder(subject, subject, keys);
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    return new TestCertificates(keys, sign(b, keys.getPrivate()));
  }

  /**
   * Writes a leaf signed by this CA into {@code dir}, its key as cert-manager writes it: PKCS#1 for
   * RSA, SEC1 naming the curve for EC.
   */
  public Path issue(
      Path dir, String commonName, List<String> dnsNames, List<String> ips, boolean rsa)
      throws Exception {
    Files.createDirectories(dir);
    KeyPair keys = rsa ? rsa() : ec();
    X509v3CertificateBuilder b =
        builder(
            new X500Name("CN=" + commonName),
            new X500Name(ca.getSubjectX500Principal().getName()),
            keys);
    GeneralName[] names = new GeneralName[dnsNames.size() + ips.size()];
    int i = 0;
    for (String dns : dnsNames) {
      names[i++] = new GeneralName(GeneralName.dNSName, dns);
    }
    for (String ip : ips) {
      names[i++] = new GeneralName(GeneralName.iPAddress, ip);
    }
    if (names.length > 0) {
      b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
    }
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    X509Certificate leaf = sign(b, caKeys.getPrivate());
    Files.writeString(dir.resolve("tls.crt"), pem(leaf));
    Files.writeString(dir.resolve("tls.key"), CertManagerKeys.pem(keys.getPrivate()));
    Files.writeString(dir.resolve("ca.crt"), pem(ca));
    return dir;
  }

  public String caPem() throws IOException {
    return pem(ca);
  }

  private static X509v3CertificateBuilder builder(X500Name subject, X500Name issuer, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofMinutes(5))),
        Date.from(now.plus(Duration.ofDays(1))),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key)
      throws OperatorCreationException, GeneralSecurityException {
    String algorithm = key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    ContentSigner signer = new JcaContentSignerBuilder(algorithm).build(key);
    return new JcaX509CertificateConverter().getCertificate(b.build(signer));
  }

  private static KeyPair ec() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  private static KeyPair rsa() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }
}
