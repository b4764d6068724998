package io.kubewarden.networkenforcer.ingest.transport;

import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * TLS of a server of ours: its key, certificate and CA, reloaded together when renewed.
 *
 * @param requireClientCertificate refuse clients without a certificate of the CA
 */
public record ServerTls(ReloadingTls material, boolean requireClientCertificate)
    implements AutoCloseable {

  /**
   * From a mounted directory ({@code tls.crt}, {@code tls.key}, and {@code ca.crt} when client
   * certificates are required: without it the server could check none, so it does not start).
   */
  public static ServerTls fromDirectory(
      Path dir, boolean requireClientCertificate, Duration reloadCheckInterval) {
    ReloadingTls material =
        ReloadingTls.start(
            "files in " + dir,
            () -> TlsMaterialLoader.fromDirectory(dir),
            ReloadingTls.Role.SERVER,
            reloadCheckInterval);
    if (material.keyManager() == null) {
      material.close();
      throw new TlsMaterialException(
          "TLS directory " + dir + " has no tls.crt and tls.key for the server", null);
    }
    if (requireClientCertificate && !material.hasCa()) {
      material.close();
      throw new TlsMaterialException(
          "TLS directory "
              + dir
              + " has no ca.crt: the server accepts only client "
              + "certificates signed by that CA, and would otherwise accept anyone; mount the CA (cert-manager writes "
              + "ca.crt), or choose plain text explicitly with --provider-tls-mode insecure",
          null);
    }
    return new ServerTls(material, requireClientCertificate);
  }

  public KeyManager keyManager() {
    return material.keyManager();
  }

  /** Null when no CA is configured (then no client certificate is asked for). */
  public TrustManager trustManager() {
    return material.hasCa() ? material.trustManager() : null;
  }

  public SSLContext sslContext() {
    return material.sslContext();
  }

  @Override
  public void close() {
    material.close();
  }
}
