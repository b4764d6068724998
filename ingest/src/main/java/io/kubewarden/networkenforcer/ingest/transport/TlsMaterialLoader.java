package io.kubewarden.networkenforcer.ingest.transport;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;

/**
 * Loads {@link TlsMaterial} for {@link TlsSettings}: from a directory, or from a Secret (and CA
 * ConfigMap) through the API. Called again on every reconnect, so rotated certificates are used.
 * {@code tls.crt} and {@code tls.key} come together or not at all: without them the client presents
 * no certificate and only authenticates the server (with {@code ca.crt}, else the JDK's trust).
 */
public final class TlsMaterialLoader {
  public static final String CERT_FILE = "tls.crt";
  public static final String KEY_FILE = "tls.key";
  public static final String CA_FILE = "ca.crt";

  private final KubernetesClient client;

  /**
   * @param client for Secrets and ConfigMaps; may be null when only directories are used
   */
  public TlsMaterialLoader(KubernetesClient client) {
    this.client = client;
  }

  public TlsMaterial load(TlsSettings settings) {
    if (settings.isInsecure()) {
      return new TlsMaterial(null, null, null);
    }
    return settings.certDir() != null ? fromDirectory(settings.certDir()) : fromSecret(settings);
  }

  public static TlsMaterial fromDirectory(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new TlsMaterialException("TLS directory " + dir + " does not exist", null);
    }
    byte[] cert = read(dir.resolve(CERT_FILE), false);
    byte[] key = read(dir.resolve(KEY_FILE), false);
    requireBothOrNeither(cert, key, "TLS directory " + dir);
    return new TlsMaterial(cert, key, read(dir.resolve(CA_FILE), false));
  }

  /** A client certificate without its key (or the reverse) is a mistake, not server-only TLS. */
  private static void requireBothOrNeither(byte[] cert, byte[] key, String where) {
    if ((cert == null) != (key == null)) {
      throw new TlsMaterialException(
          where
              + " has "
              + (cert == null
                  ? KEY_FILE + " but no " + CERT_FILE
                  : CERT_FILE + " but no " + KEY_FILE)
              + ": give both for mutual TLS, or neither to authenticate the "
              + "server only (with "
              + CA_FILE
              + ")",
          null);
    }
  }

  private TlsMaterial fromSecret(TlsSettings settings) {
    if (client == null) {
      throw new TlsMaterialException(
          "TLS Secret "
              + settings.secretNamespace()
              + "/"
              + settings.secretName()
              + " must be read through the Kubernetes API, but no API client is configured",
          null);
    }
    Secret secret =
        client
            .secrets()
            .inNamespace(settings.secretNamespace())
            .withName(settings.secretName())
            .get();
    if (secret == null) {
      throw new TlsMaterialException(
          "TLS Secret "
              + settings.secretNamespace()
              + "/"
              + settings.secretName()
              + " not found (or we may not read it: the chart grants get on it)",
          null);
    }
    byte[] cert = secretValue(secret, CERT_FILE);
    byte[] key = secretValue(secret, KEY_FILE);
    byte[] ca = secretValue(secret, CA_FILE);
    if (settings.caConfigMapName() != null) {
      ConfigMap cm =
          client
              .configMaps()
              .inNamespace(settings.secretNamespace())
              .withName(settings.caConfigMapName())
              .get();
      String bundle =
          cm == null || cm.getData() == null ? null : cm.getData().get(settings.caConfigMapKey());
      if (bundle == null) {
        throw new TlsMaterialException(
            "CA ConfigMap "
                + settings.secretNamespace()
                + "/"
                + settings.caConfigMapName()
                + " has no key "
                + settings.caConfigMapKey(),
            null);
      }
      ca = bundle.getBytes(StandardCharsets.US_ASCII);
    }
    requireBothOrNeither(
        cert, key, "TLS Secret " + settings.secretNamespace() + "/" + settings.secretName());
    return new TlsMaterial(cert, key, ca);
  }

  private static byte[] secretValue(Secret secret, String key) {
    Map<String, String> data = secret.getData();
    if (data != null && data.get(key) != null) {
      return Base64.getDecoder().decode(data.get(key));
    }
    Map<String, String> plain = secret.getStringData();
    return plain != null && plain.get(key) != null
        ? plain.get(key).getBytes(StandardCharsets.US_ASCII)
        : null;
  }

  private static byte[] read(Path file, boolean required) {
    if (!Files.exists(file)) {
      if (required) {
        throw new TlsMaterialException("TLS file " + file + " does not exist", null);
      }
      return null;
    }
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new TlsMaterialException("cannot read TLS file " + file + ": " + e.getMessage(), e);
    }
  }
}
