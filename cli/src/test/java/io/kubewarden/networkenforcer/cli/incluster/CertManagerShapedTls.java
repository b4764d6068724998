package io.kubewarden.networkenforcer.cli.incluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * TLS material shaped exactly as cert-manager's defaults write it (RSA 2048, the private key in
 * PKCS#1, {@code -----BEGIN RSA PRIVATE KEY-----}): a CA, a server certificate and a client
 * certificate, made with the openssl command line. Stands in for cert-manager, which this cluster
 * does not run.
 */
final class CertManagerShapedTls {

  /**
   * The files of one certificate: {@code tls.crt}, {@code tls.key} (PKCS#1) and the CA's {@code
   * ca.crt}.
   */
  record Pair(Path certificate, Path key, Path ca) {
    String keyPem() throws IOException {
      return Files.readString(key, StandardCharsets.US_ASCII);
    }
  }

  private final Path dir;
  private final Path caCert;
  private final Path caKey;

  private CertManagerShapedTls(Path dir) throws IOException {
    this.dir = dir;
    Files.createDirectories(dir);
    caKey = rsaKey("ca");
    caCert = dir.resolve("ca.crt");
    openssl(
        "req",
        "-x509",
        "-new",
        "-key",
        caKey.toString(),
        "-sha256",
        "-days",
        "2",
        "-subj",
        "/CN=in-cluster-test-ca",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        "-out",
        caCert.toString());
  }

  static CertManagerShapedTls create(Path dir) throws IOException {
    return new CertManagerShapedTls(dir);
  }

  Path ca() {
    return caCert;
  }

  /** A server certificate for that DNS name (and those IP addresses). */
  Pair server(String name, String dnsName, String... ips) throws IOException {
    StringBuilder san = new StringBuilder("subjectAltName=DNS:" + dnsName);
    for (String ip : ips) {
      san.append(",IP:").append(ip);
    }
    return issue(name, dnsName, "serverAuth", san.toString());
  }

  /**
   * A certificate for both ends of mutual TLS (server and client auth) with those DNS names (the
   * first is the common name) and IP addresses: Calico's operator issues its key pairs (e.g.
   * Goldmane's) this way, and a client may present one.
   */
  Pair serverAndClient(String name, List<String> dnsNames, String... ips) throws IOException {
    StringBuilder san = new StringBuilder("subjectAltName=");
    san.append(String.join(",", dnsNames.stream().map(d -> "DNS:" + d).toList()));
    for (String ip : ips) {
      san.append(",IP:").append(ip);
    }
    return issue(name, dnsNames.get(0), "serverAuth,clientAuth", san.toString());
  }

  /**
   * The key of {@code pair} in PKCS#8, for a Netty server (it reads PKCS#8 only; only the product's
   * side must cope with PKCS#1).
   */
  static Path pkcs8Key(Pair pair) throws IOException {
    Path key = pair.key();
    Path pkcs8 = key.resolveSibling(key.getFileName().toString().replace(".key", "-pkcs8.key"));
    openssl("pkcs8", "-topk8", "-nocrypt", "-in", key.toString(), "-out", pkcs8.toString());
    return pkcs8;
  }

  /** A client certificate with that common name. */
  Pair client(String name, String commonName) throws IOException {
    return issue(name, commonName, "clientAuth", "subjectAltName=DNS:" + commonName);
  }

  private Pair issue(String name, String commonName, String usage, String san) throws IOException {
    Path key = rsaKey(name);
    Path csr = dir.resolve(name + ".csr");
    Path ext = dir.resolve(name + ".ext");
    Files.writeString(
        ext,
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
            + "extendedKeyUsage="
            + usage
            + "\n"
            + san
            + "\n");
    openssl(
        "req",
        "-new",
        "-key",
        key.toString(),
        "-subj",
        "/CN=" + commonName,
        "-out",
        csr.toString());
    Path cert = dir.resolve(name + ".crt");
    openssl(
        "x509",
        "-req",
        "-in",
        csr.toString(),
        "-CA",
        caCert.toString(),
        "-CAkey",
        caKey.toString(),
        "-CAcreateserial",
        "-days",
        "2",
        "-sha256",
        "-extfile",
        ext.toString(),
        "-out",
        cert.toString());
    return new Pair(cert, key, caCert);
  }

  /** An RSA key in PKCS#1, as cert-manager writes by default (rotationPolicy aside). */
  private Path rsaKey(String name) throws IOException {
    Path key = dir.resolve(name + ".key");
    openssl("genrsa", "-traditional", "-out", key.toString(), "2048");
    if (!Files.readString(key).startsWith("-----BEGIN RSA PRIVATE KEY-----")) {
      throw new IllegalStateException(key + " is not a PKCS#1 key");
    }
    return key;
  }

  private static void openssl(String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (process.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
