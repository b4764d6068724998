package io.kubewarden.networkenforcer.ingest.transport;

import io.kubewarden.networkenforcer.common.config.ConfigException;

/** The TLS modes of the Helm values ({@code controller.provider.<name>.tls.mode}). */
public enum TlsMode {
  /** Certificates issued for us (cert-manager), mounted as files or read from their Secret. */
  issuer,
  /** Certificates the user (or the data plane's installer) already has in a Secret. */
  existingSecret,
  /** Plaintext. Refused for Goldmane, which only speaks mutual TLS. */
  insecure;

  public static TlsMode parse(String setting, String value) {
    for (TlsMode m : values()) {
      if (m.name().equals(value)) {
        return m;
      }
    }
    throw new ConfigException(
        setting + " = '" + value + "' is not a TLS mode; use issuer, existingSecret or insecure");
  }
}
