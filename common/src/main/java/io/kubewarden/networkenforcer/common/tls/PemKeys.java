package io.kubewarden.networkenforcer.common.tls;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an unencrypted private key in the PEM forms Secrets hold: PKCS#8 ({@code PRIVATE KEY}),
 * PKCS#1 ({@code RSA PRIVATE KEY}) and SEC1 ({@code EC PRIVATE KEY}) with the JDK alone; the latter
 * two are wrapped into PKCS#8, the only encoding the JDK's key factories read.
 *
 * <p>The one place keys are read: cert-manager writes PKCS#1 RSA and SEC1 EC keys by default, while
 * gRPC's and OpenTelemetry's PEM readers and Kafka's PEM key store take PKCS#8 only. Every TLS hop
 * (ingest's clients and servers, the writer's OTLP exporters) hands its key file through here.
 */
public final class PemKeys {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]+?)\\s*-----END \\1-----");

  /** DER of the algorithm identifiers: rsaEncryption with NULL parameters, and id-ecPublicKey. */
  private static final byte[] RSA_ALGORITHM = hex("300d06092a864886f70d0101010500");

  private static final byte[] EC_PUBLIC_KEY_OID = hex("06072a8648ce3d0201");

  private PemKeys() {}

  /** The key of the first private-key block of {@code pem}. */
  public static PrivateKey parse(byte[] pem) throws IOException {
    Matcher m = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    byte[] curveBlock = null;
    while (m.find()) {
      String type = m.group(1);
      byte[] der = Base64.getMimeDecoder().decode(m.group(2));
      if (type.equals("EC PARAMETERS")) {
        curveBlock = der; // openssl ecparam writes the curve before a key that may omit it
        continue;
      }
      try {
        return switch (type) {
          case "PRIVATE KEY" -> pkcs8(der);
          case "RSA PRIVATE KEY" ->
              KeyFactory.getInstance("RSA")
                  .generatePrivate(
                      new PKCS8EncodedKeySpec(
                          sequence(integerZero(), RSA_ALGORITHM, tlv(0x04, der))));
          case "EC PRIVATE KEY" ->
              KeyFactory.getInstance("EC")
                  .generatePrivate(
                      new PKCS8EncodedKeySpec(
                          sequence(
                              integerZero(),
                              sequence(EC_PUBLIC_KEY_OID, sec1Curve(der, curveBlock)),
                              tlv(0x04, der))));
          default ->
              throw new IOException(
                  "a PEM block of type " + type + " is not an unencrypted private key");
        };
      } catch (GeneralSecurityException | RuntimeException e) {
        throw new IOException("cannot read the " + type + ": " + e.getMessage(), e);
      }
    }
    throw new IOException("no unencrypted private key in the PEM data (found nothing)");
  }

  /**
   * The same key as an unencrypted PKCS#8 PEM block ({@code -----BEGIN PRIVATE KEY-----}), in
   * memory only, for readers that take nothing else.
   */
  public static byte[] toPkcs8Pem(byte[] pem) throws IOException {
    String base64 =
        Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(parse(pem).getEncoded());
    return ("-----BEGIN PRIVATE KEY-----\n" + base64 + "\n-----END PRIVATE KEY-----\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    GeneralSecurityException last = null;
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw last;
  }

  /** The named-curve OID of a SEC1 ECPrivateKey: the {@code [0]} field after version and key. */
  private static byte[] sec1Curve(byte[] der, byte[] curveBlock) throws IOException {
    int[] outer = header(der, 0);
    int pos = outer[0];
    int end = pos + outer[1];
    while (pos < end) {
      int tag = der[pos] & 0xff;
      int[] h = header(der, pos);
      if (tag == 0xa0) {
        return Arrays.copyOfRange(der, h[0], h[0] + h[1]);
      }
      pos = h[0] + h[1];
    }
    if (curveBlock != null) {
      return curveBlock;
    }
    throw new IOException("the EC key does not name its curve (and no EC PARAMETERS block does)");
  }

  /**
   * @return {start of the value, its length} of the DER element at {@code pos}
   */
  private static int[] header(byte[] der, int pos) throws IOException {
    int lengthByte = der[pos + 1] & 0xff;
    if (lengthByte < 0x80) {
      return new int[] {pos + 2, lengthByte};
    }
    int octets = lengthByte & 0x7f;
    if (octets > 3) {
      throw new IOException("DER length too long");
    }
    int length = 0;
    for (int i = 0; i < octets; i++) {
      length = (length << 8) | (der[pos + 2 + i] & 0xff);
    }
    return new int[] {pos + 2 + octets, length};
  }

  private static byte[] integerZero() {
    return new byte[] {0x02, 0x01, 0x00};
  }

  private static byte[] sequence(byte[]... parts) {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      content.writeBytes(p);
    }
    return tlv(0x30, content.toByteArray());
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else if (n < 0x100) {
      out.write(0x81);
      out.write(n);
    } else if (n < 0x10000) {
      out.write(0x82);
      out.write(n >> 8);
      out.write(n);
    } else {
      out.write(0x83);
      out.write(n >> 16);
      out.write(n >> 8);
      out.write(n);
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  private static byte[] hex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }
}
