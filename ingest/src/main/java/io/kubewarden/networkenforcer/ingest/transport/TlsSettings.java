package io.kubewarden.networkenforcer.ingest.transport;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.nio.file.Path;

/**
 * Where one hop's certificates come from. Either a directory with {@code tls.crt}, {@code tls.key}
 * and {@code ca.crt} (a mounted Secret), or a Secret read through the API, optionally with the CA
 * from a ConfigMap key (Calico keeps its CA bundle in one).
 *
 * @param certDir directory of mounted certificate files, or null
 * @param secretNamespace namespace of the Secret to read when there is no directory
 * @param secretName the Secret ({@code tls.crt}, {@code tls.key}, {@code ca.crt})
 * @param caConfigMapName a ConfigMap holding the CA instead of the Secret's {@code ca.crt}, or null
 * @param caConfigMapKey the key of the CA bundle in that ConfigMap
 * @param serverName the TLS server name to verify and send as SNI/authority, or null for the host
 */
public record TlsSettings(
    TlsMode mode,
    Path certDir,
    String secretNamespace,
    String secretName,
    String caConfigMapName,
    String caConfigMapKey,
    String serverName) {

  public static TlsSettings insecure() {
    return new TlsSettings(TlsMode.insecure, null, null, null, null, null, null);
  }

  public static TlsSettings fromDirectory(TlsMode mode, Path dir, String serverName) {
    return new TlsSettings(mode, dir, null, null, null, null, serverName);
  }

  public static TlsSettings fromSecret(
      TlsMode mode, String namespace, String secret, String serverName) {
    return new TlsSettings(mode, null, namespace, secret, null, null, serverName);
  }

  public TlsSettings withCaConfigMap(String name, String key) {
    return new TlsSettings(mode, certDir, secretNamespace, secretName, name, key, serverName);
  }

  public TlsSettings withServerName(String name) {
    return new TlsSettings(
        mode, certDir, secretNamespace, secretName, caConfigMapName, caConfigMapKey, name);
  }

  public boolean isInsecure() {
    return mode == TlsMode.insecure;
  }

  /**
   * @param setting the Helm key prefix, for messages ({@code controller.provider.cilium.tls})
   */
  public TlsSettings validate(String setting) {
    if (mode == null) {
      throw new ConfigException(
          setting + ".mode is not set; use issuer, existingSecret or insecure");
    }
    if (mode == TlsMode.insecure) {
      return this;
    }
    if (certDir == null && (isBlank(secretNamespace) || isBlank(secretName))) {
      throw new ConfigException(
          setting
              + ".mode is "
              + mode
              + " but neither a certificate directory nor a Secret "
              + "(namespace/name) is set; mount the Secret and set its directory, or name the Secret to read");
    }
    if (caConfigMapName != null && isBlank(caConfigMapKey)) {
      throw new ConfigException(
          setting + ": the CA ConfigMap " + caConfigMapName + " needs the key of its bundle");
    }
    return this;
  }

  /** Where the certificates come from, for logs (never their content). */
  public String describe() {
    if (mode == TlsMode.insecure) {
      return "insecure (plaintext)";
    }
    String source =
        certDir != null
            ? "files in " + certDir
            : "Secret "
                + secretNamespace
                + "/"
                + secretName
                + (caConfigMapName == null
                    ? ""
                    : " with CA from ConfigMap " + secretNamespace + "/" + caConfigMapName);
    return mode + " (" + source + (serverName == null ? "" : ", server name " + serverName) + ")";
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
