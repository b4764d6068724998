package io.kubewarden.networkenforcer.ingest.transport;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * TLS of a server of ours: its certificate (reloaded when renewed) and, when a CA is given, the
 * trust for client certificates.
 *
 * @param trustManagers null when no CA is configured (then no client certificate is asked for)
 * @param requireClientCertificate refuse clients without a certificate of the CA
 */
public record ServerTls(KeyManager keyManager, TrustManager[] trustManagers, boolean requireClientCertificate) {

  /** From a mounted directory ({@code tls.crt}, {@code tls.key}, optional {@code ca.crt}). */
  public static ServerTls fromDirectory(Path dir, boolean requireClientCertificate, Duration reloadCheckInterval) {
    KeyManager keyManager = new ReloadingKeyManager(dir, reloadCheckInterval, Clock.systemUTC());
    TlsMaterial material = TlsMaterialLoader.fromDirectory(dir);
    TrustManager[] trust = material.trustedCa() == null ? null : material.trustManagers();
    return new ServerTls(keyManager, trust, requireClientCertificate && trust != null);
  }

  public SSLContext sslContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(new KeyManager[] {keyManager}, trustManagers, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new TlsMaterialException("cannot build a TLS context: " + e.getMessage(), e);
    }
  }
}
