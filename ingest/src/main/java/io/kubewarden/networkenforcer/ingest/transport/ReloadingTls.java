package io.kubewarden.networkenforcer.ingest.transport;

import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.AdvancedTlsX509TrustManager.Verification;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key, chain and CA of one TLS hop held in gRPC's reloading key and trust managers, re-read
 * from their source (mounted files or a Secret) every period. A new key and chain replace the old
 * pair in one step (gRPC's key manager hands out a pair per alias, never a mix), and a reading
 * whose key does not match its chain, or that does not parse, is skipped: the previous material
 * stays in use. Connections already open keep the session they negotiated.
 */
public final class ReloadingTls implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingTls.class);
  private static final ScheduledExecutorService RELOADER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "tls-reload");
            t.setDaemon(true);
            return t;
          });

  /** Which side we are: a client checks the server's name, a server only the client's chain. */
  public enum Role {
    CLIENT,
    SERVER
  }

  private final String source;
  private final Supplier<TlsMaterial> reader;
  private final AdvancedTlsX509KeyManager keyManager;
  private final AdvancedTlsX509TrustManager trustManager;
  private final boolean hasCa;
  private final AtomicLong generation = new AtomicLong();
  private volatile byte[] fingerprint;

  /** The last reading refused, so a renewal stuck half way is reported once, not every period. */
  private byte[] refused;

  private volatile ScheduledFuture<?> task;

  private ReloadingTls(String source, Supplier<TlsMaterial> reader, Role role) {
    this.source = source;
    this.reader = reader;
    TlsMaterial first = reader.get();
    TlsMaterial.Parsed parsed = first.parse();
    this.keyManager = first.hasKeyPair() ? new AdvancedTlsX509KeyManager() : null;
    this.hasCa = first.trustedCa() != null;
    try {
      this.trustManager =
          AdvancedTlsX509TrustManager.newBuilder()
              .setVerification(
                  role == Role.CLIENT
                      ? Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION
                      : Verification.CERTIFICATE_ONLY_VERIFICATION)
              .build();
      if (!hasCa) {
        trustManager.useSystemDefaultTrustCerts();
      }
    } catch (GeneralSecurityException e) {
      throw new TlsMaterialException(
          "cannot set up TLS trust for " + source + ": " + e.getMessage(), e);
    }
    apply(parsed);
    fingerprint = first.fingerprint();
  }

  /**
   * Reads the material now and then every {@code period} (zero or negative: never again).
   *
   * @throws TlsMaterialException when the first reading is not usable
   */
  public static ReloadingTls start(
      String source, Supplier<TlsMaterial> reader, Role role, Duration period) {
    ReloadingTls tls = new ReloadingTls(source, reader, role);
    if (period.toMillis() > 0) {
      tls.task =
          RELOADER.scheduleWithFixedDelay(
              tls::reload, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }
    return tls;
  }

  /** Files once, as a client (tools and tests). */
  public static ReloadingTls fromDirectory(Path dir) {
    return start(
        "files in " + dir, () -> TlsMaterialLoader.fromDirectory(dir), Role.CLIENT, Duration.ZERO);
  }

  /**
   * Re-reads the source and applies it when it changed and is whole.
   *
   * @return whether new material is now in use
   */
  public synchronized boolean reload() {
    byte[] next = null;
    try {
      TlsMaterial material = reader.get();
      next = material.fingerprint();
      if (Arrays.equals(next, fingerprint) || Arrays.equals(next, refused)) {
        return false;
      }
      if (material.hasKeyPair() != (keyManager != null)
          || (material.trustedCa() != null) != hasCa) {
        throw new TlsMaterialException(
            "a reload cannot add or remove the key pair or the CA; restart to change"
                + " the kind of TLS",
            null);
      }
      apply(material.parse());
      fingerprint = next;
      LOG.info("reloaded the TLS key, certificate and CA from {}", source);
      return true;
    } catch (RuntimeException e) {
      refused = next;
      LOG.warn("kept the previous TLS material: {} is not usable yet: {}", source, e.getMessage());
      return false;
    }
  }

  private void apply(TlsMaterial.Parsed parsed) {
    try {
      if (parsed.caCertificates() != null) {
        trustManager.updateTrustCredentials(parsed.caCertificates());
      }
    } catch (GeneralSecurityException | IOException e) {
      throw new TlsMaterialException(
          "the CA bundle of " + source + " is not usable: " + e.getMessage(), e);
    }
    if (keyManager != null) {
      keyManager.updateIdentityCredentials(parsed.chain(), parsed.key());
    }
    generation.incrementAndGet();
  }

  /** How many times material was put in use (1 after the first reading). */
  public long generation() {
    return generation.get();
  }

  /** Our key and chain; null when we present no certificate. */
  public KeyManager keyManager() {
    return keyManager;
  }

  public TrustManager trustManager() {
    return trustManager;
  }

  public boolean hasCa() {
    return hasCa;
  }

  /** A JDK context over the same reloading managers (for the OTLP/HTTP server and JDK clients). */
  public SSLContext sslContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          keyManager == null ? null : new KeyManager[] {keyManager},
          new TrustManager[] {trustManager},
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new TlsMaterialException("cannot build a TLS context: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    ScheduledFuture<?> t = task;
    if (t != null) {
      t.cancel(false);
    }
  }
}
