package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away PKI for one test API server: a CA, the API server's serving certificate, client
 * certificates (Kubernetes reads the user from CN and the groups from O) and the service-account
 * signing key the API server signs its tokens with. Everything lives for a day and is written as
 * PEM.
 */
final class ClusterPki {

  /** A certificate with its key. */
  record Credential(X509Certificate certificate, PrivateKey privateKey) {
    String certificatePem() {
      return pem("CERTIFICATE", encoded(certificate));
    }

    String privateKeyPem() {
      return pem("PRIVATE KEY", privateKey.getEncoded());
    }

    String certificateBase64() {
      return base64(certificatePem());
    }

    String privateKeyBase64() {
      return base64(privateKeyPem());
    }

    private static String base64(String pem) {
      return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII));
    }
  }

  private static final int MAX_COMMON_NAME = 64;

  /** The kubernetes Service's cluster IP: the first address of {@link #SERVICE_RANGE}. */
  static final String KUBERNETES_SERVICE_IP = "10.96.0.1";

  /** kube-apiserver's {@code --service-cluster-ip-range}. */
  static final String SERVICE_RANGE = "10.96.0.0/24";

  static final Duration VALIDITY = Duration.ofDays(1);
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private final SecureRandom random = new SecureRandom();
  private final KeyPair caKeys;
  private final X509Certificate caCertificate;
  private final KeyPair serviceAccountKeys;

  ClusterPki() {
    caKeys = rsaKeyPair();
    X500Name caName = name("network-enforcer-test-ca");
    caCertificate = sign(caName, caKeys, true, null, null);
    serviceAccountKeys = rsaKeyPair();
  }

  String caPem() {
    return pem("CERTIFICATE", encoded(caCertificate));
  }

  /**
   * The serving certificate of the API server, valid for loopback, the address it listens on and
   * the in-cluster names.
   */
  Credential server(String listenAddress) {
    KeyPair keys = rsaKeyPair();
    GeneralName[] names = {
      new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
      new GeneralName(GeneralName.iPAddress, listenAddress),
      new GeneralName(GeneralName.dNSName, "localhost"),
      new GeneralName(GeneralName.dNSName, "kubernetes"),
      new GeneralName(GeneralName.dNSName, "kubernetes.default"),
      new GeneralName(GeneralName.dNSName, "kubernetes.default.svc"),
      new GeneralName(GeneralName.dNSName, "kubernetes.default.svc.cluster.local"),
      // The first address of the service range: pods reach the API server as the kubernetes
      // Service.
      new GeneralName(GeneralName.iPAddress, KUBERNETES_SERVICE_IP),
    };
    X509Certificate certificate =
        sign(
            name("kube-apiserver"),
            keys,
            false,
            KeyPurposeId.id_kp_serverAuth,
            new GeneralNames(names));
    return credential(certificate, keys);
  }

  /** A client certificate for that user in those groups. */
  Credential client(String user, String... groups) {
    if (user.length() > MAX_COMMON_NAME) {
      throw new IllegalArgumentException(
          "a certificate's common name holds at most "
              + MAX_COMMON_NAME
              + " characters (RFC 5280 ub-common-name), "
              + user
              + " has "
              + user.length());
    }
    KeyPair keys = rsaKeyPair();
    return credential(
        sign(name(user, groups), keys, false, KeyPurposeId.id_kp_clientAuth, null), keys);
  }

  String serviceAccountPrivateKeyPem() {
    return pem("PRIVATE KEY", serviceAccountKeys.getPrivate().getEncoded());
  }

  String serviceAccountPublicKeyPem() {
    return pem("PUBLIC KEY", serviceAccountKeys.getPublic().getEncoded());
  }

  static void write(Path file, String content) {
    try {
      Files.writeString(file, content, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private Credential credential(X509Certificate certificate, KeyPair keys) {
    return new Credential(certificate, keys.getPrivate());
  }

  /** TLS for a client presenting that credential and trusting only this CA. */
  SSLContext clientTls(Credential client) {
    try {
      char[] password = new char[0];
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry(
          "client",
          client.privateKey(),
          password,
          new Certificate[] {client.certificate(), caCertificate});
      KeyManagerFactory keyManagers =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, password);
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("ca", caCertificate);
      TrustManagerFactory trustManagers =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trustManagers.init(trust);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), random);
      return tls;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build client TLS", e);
    }
  }

  private static X500Name name(String commonName, String... organizations) {
    X500NameBuilder builder = new X500NameBuilder(BCStyle.INSTANCE);
    for (String organization : organizations) {
      builder.addRDN(BCStyle.O, organization);
    }
    return builder.addRDN(BCStyle.CN, commonName).build();
  }

  private X509Certificate sign(
      X500Name subject,
      KeyPair subjectKeys,
      boolean ca,
      KeyPurposeId purpose,
      GeneralNames alternativeNames) {
    Instant now = Instant.now();
    X500Name issuer =
        ca ? subject : X500Name.getInstance(caCertificate.getSubjectX500Principal().getEncoded());
    KeyPair issuerKeys = ca ? subjectKeys : caKeys;
    try {
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  issuer,
                  BigInteger.valueOf(SERIAL.incrementAndGet()),
                  Date.from(now.minus(Duration.ofMinutes(5))),
                  Date.from(now.plus(VALIDITY)),
                  subject,
                  subjectKeys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(ca))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  extensions.createSubjectKeyIdentifier(subjectKeys.getPublic()))
              .addExtension(
                  Extension.authorityKeyIdentifier,
                  false,
                  extensions.createAuthorityKeyIdentifier(issuerKeys.getPublic()));
      if (ca) {
        builder.addExtension(
            Extension.keyUsage,
            true,
            new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
      } else {
        builder.addExtension(
            Extension.keyUsage,
            true,
            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      }
      if (alternativeNames != null) {
        builder.addExtension(Extension.subjectAlternativeName, false, alternativeNames);
      }
      ContentSigner signer =
          new JcaContentSignerBuilder("SHA256withRSA").build(issuerKeys.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException("cannot issue a test certificate for " + subject, e);
    }
  }

  private KeyPair rsaKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048, random);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("RSA unavailable", e);
    }
  }

  private static byte[] encoded(X509Certificate certificate) {
    try {
      return certificate.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    List<String> lines = new ArrayList<>();
    lines.add("-----BEGIN " + type + "-----");
    lines.add(body);
    lines.add("-----END " + type + "-----");
    return String.join("\n", lines) + "\n";
  }
}
