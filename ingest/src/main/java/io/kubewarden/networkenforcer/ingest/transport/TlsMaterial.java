package io.kubewarden.networkenforcer.ingest.transport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * PEM certificates and key of one TLS hop. Keys may be PKCS#8, PKCS#1 (RSA) or SEC1 (EC): the
 * forms cert-manager, Helm and operators write into Secrets.
 *
 * @param certificateChain our certificate chain (PEM), or null when we present none
 * @param privateKey our key (PEM), or null
 * @param trustedCa the CA bundle (PEM) that signs the peer, or null for the JDK's default trust
 */
public record TlsMaterial(byte[] certificateChain, byte[] privateKey, byte[] trustedCa) {
  private static final char[] NO_PASSWORD = new char[0];

  public boolean hasKeyPair() {
    return certificateChain != null && privateKey != null;
  }

  public KeyManager[] keyManagers() {
    if (!hasKeyPair()) {
      return null;
    }
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      store.setKeyEntry("key", parsePrivateKey(privateKey), NO_PASSWORD,
          certificates(certificateChain).toArray(new Certificate[0]));
      KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, NO_PASSWORD);
      return factory.getKeyManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw new TlsMaterialException("the certificate and key do not form a usable key pair: " + e.getMessage(), e);
    }
  }

  public TrustManager[] trustManagers() {
    try {
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      if (trustedCa == null) {
        factory.init((KeyStore) null);
      } else {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        for (X509Certificate ca : certificates(trustedCa)) {
          store.setCertificateEntry("ca-" + i++, ca);
        }
        factory.init(store);
      }
      return factory.getTrustManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw new TlsMaterialException("the CA bundle is not usable: " + e.getMessage(), e);
    }
  }

  /** A JDK SSL context (for the OTLP/HTTP server). */
  public SSLContext sslContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers(), trustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new TlsMaterialException("cannot build a TLS context: " + e.getMessage(), e);
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
    try (PEMParser parser = new PEMParser(new InputStreamReader(new ByteArrayInputStream(pem),
        StandardCharsets.US_ASCII))) {
      Object object = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (object instanceof PEMKeyPair pair) {
        return converter.getKeyPair(pair).getPrivate();
      }
      if (object instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      throw new IOException("no unencrypted private key in the PEM data (found "
          + (object == null ? "nothing" : object.getClass().getSimpleName()) + ")");
    }
  }

  /** Never print key material. */
  @Override
  public String toString() {
    return "TlsMaterial[keyPair=" + hasKeyPair() + ", ca=" + (trustedCa != null) + "]";
  }
}
