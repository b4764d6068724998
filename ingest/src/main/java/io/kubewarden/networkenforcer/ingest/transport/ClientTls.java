package io.kubewarden.networkenforcer.ingest.transport;

import java.time.Duration;

/**
 * The reloading TLS material of one client hop, read when the first channel is opened (so a Secret
 * that does not exist yet is retried with the stream's backoff) and then kept fresh.
 */
public final class ClientTls implements AutoCloseable {
  private final TlsMaterialLoader loader;
  private final TlsSettings settings;
  private final Duration reloadPeriod;
  private ReloadingTls tls;
  private boolean closed;

  public ClientTls(TlsMaterialLoader loader, TlsSettings settings, Duration reloadPeriod) {
    this.loader = loader;
    this.settings = settings;
    this.reloadPeriod = reloadPeriod;
  }

  /** Null for plaintext. */
  public synchronized ReloadingTls get() {
    if (settings.isInsecure()) {
      return null;
    }
    if (tls == null) {
      if (closed) {
        throw new IllegalStateException("closed");
      }
      tls =
          ReloadingTls.start(
              settings.describe(),
              () -> loader.load(settings),
              ReloadingTls.Role.CLIENT,
              reloadPeriod);
    }
    return tls;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (tls != null) {
      tls.close();
    }
  }
}
