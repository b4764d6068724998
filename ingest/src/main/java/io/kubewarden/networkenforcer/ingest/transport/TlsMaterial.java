package io.kubewarden.networkenforcer.ingest.transport;

import io.kubewarden.networkenforcer.common.tls.PemKeys;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * The PEM files of one TLS hop as read at one moment. Keys may be PKCS#8, PKCS#1 (RSA) or SEC1
 * (EC): the forms cert-manager, Helm and operators write into Secrets (gRPC's own PEM reader takes
 * PKCS#8 only, so {@link PemKeys} reads them).
 *
 * @param certificateChain our certificate chain (PEM), or null when we present none
 * @param privateKey our key (PEM), or null
 * @param trustedCa the CA bundle (PEM) that signs the peer, or null for the JDK's default trust
 */
public record TlsMaterial(byte[] certificateChain, byte[] privateKey, byte[] trustedCa) {

  public boolean hasKeyPair() {
    return certificateChain != null && privateKey != null;
  }

  /**
   * The parsed material, refused when the key does not belong to the chain's first certificate: a
   * renewal caught between writing the new chain and the new key must never be served.
   */
  public Parsed parse() {
    X509Certificate[] chain = null;
    PrivateKey key = null;
    if (hasKeyPair()) {
      try {
        chain = certificates(certificateChain).toArray(new X509Certificate[0]);
        key = parsePrivateKey(privateKey);
      } catch (GeneralSecurityException | IOException e) {
        throw new TlsMaterialException(
            "the certificate and key are not usable: " + e.getMessage(), e);
      }
      if (!belongTogether(key, chain[0].getPublicKey())) {
        throw new TlsMaterialException(
            "the private key does not belong to the certificate "
                + chain[0].getSubjectX500Principal().getName()
                + " (a renewal half written?)",
            null);
      }
    }
    X509Certificate[] cas = null;
    if (trustedCa != null) {
      try {
        cas = certificates(trustedCa).toArray(new X509Certificate[0]);
      } catch (GeneralSecurityException e) {
        throw new TlsMaterialException("the CA bundle is not usable: " + e.getMessage(), e);
      }
    }
    return new Parsed(key, chain, cas);
  }

  /** Changes when any of the three files changes. */
  public byte[] fingerprint() {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (byte[] part : new byte[][] {certificateChain, privateKey, trustedCa}) {
        digest.update(part == null ? new byte[] {0} : new byte[] {1});
        if (part != null) {
          digest.update(part);
        }
      }
      return digest.digest();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * @param caCertificates null for the JDK's default trust
   */
  public record Parsed(PrivateKey key, X509Certificate[] chain, X509Certificate[] caCertificates) {}

  /** A signature made with the key verifies with the certificate's public key. */
  private static boolean belongTogether(PrivateKey key, PublicKey certified) {
    if (!key.getAlgorithm().equals(certified.getAlgorithm())) {
      return false;
    }
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> key.getAlgorithm(); // Ed25519, Ed448
        };
    try {
      byte[] probe = new byte[32];
      new SecureRandom().nextBytes(probe);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certified);
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  static List<X509Certificate> certificates(byte[] pem) throws GeneralSecurityException {
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    List<X509Certificate> result = new ArrayList<>();
    for (Certificate c : factory.generateCertificates(new ByteArrayInputStream(pem))) {
      result.add((X509Certificate) c);
    }
    if (result.isEmpty()) {
      throw new GeneralSecurityException("no certificate in the PEM data");
    }
    return result;
  }

  static PrivateKey parsePrivateKey(byte[] pem) throws IOException {
    return PemKeys.parse(pem);
  }

  /** Never print key material. */
  @Override
  public String toString() {
    return "TlsMaterial[keyPair=" + hasKeyPair() + ", ca=" + (trustedCa != null) + "]";
  }
}
