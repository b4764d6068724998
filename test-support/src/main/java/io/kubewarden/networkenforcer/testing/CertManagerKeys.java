package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.Base64;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;

/**
 * Private keys in the PEM form cert-manager writes into a Secret's {@code tls.key} by default
 * ({@code privateKey.encoding: PKCS1}): RSA as PKCS#1 ({@code RSA PRIVATE KEY}), ECDSA as SEC1
 * ({@code EC PRIVATE KEY}) naming its curve, as Go's {@code x509.MarshalECPrivateKey} does. Tests
 * hand these to the product, never PKCS#8, so a reader that takes PKCS#8 only fails in a test.
 */
public final class CertManagerKeys {
  private CertManagerKeys() {}

  public static String pem(PrivateKey key) {
    try {
      PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
      if (key instanceof RSAPrivateCrtKey) {
        // The PKCS#8 wrapper holds the PKCS#1 RSAPrivateKey as it is.
        return block("RSA PRIVATE KEY", info.parsePrivateKey().toASN1Primitive().getEncoded());
      }
      if (key instanceof ECPrivateKey ec) {
        ASN1Encodable curve = info.getPrivateKeyAlgorithm().getParameters();
        int orderBits = ec.getParams().getOrder().bitLength();
        BigInteger s = ec.getS();
        return block(
            "EC PRIVATE KEY",
            new org.bouncycastle.asn1.sec.ECPrivateKey(orderBits, s, null, curve).getEncoded());
      }
      throw new IllegalArgumentException(
          "cert-manager writes RSA and ECDSA keys, not " + key.getAlgorithm());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String block(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
