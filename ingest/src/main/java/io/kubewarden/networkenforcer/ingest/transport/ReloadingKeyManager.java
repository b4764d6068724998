package io.kubewarden.networkenforcer.ingest.transport;

import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server key manager that picks up a renewed certificate from its directory (cert-manager
 * rewrites the mounted Secret before the old certificate expires) without a restart. The files
 * are checked at most once per interval, on a handshake; a broken renewal keeps the old pair.
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingKeyManager.class);

  private final Path dir;
  private final Duration interval;
  private final Clock clock;
  private volatile X509ExtendedKeyManager delegate;
  private volatile FileTime loadedVersion;
  private volatile Instant nextCheck;

  public ReloadingKeyManager(Path dir, Duration interval, Clock clock) {
    this.dir = dir;
    this.interval = interval;
    this.clock = clock;
    this.delegate = load();
    this.loadedVersion = version();
    this.nextCheck = clock.instant().plus(interval);
  }

  private X509ExtendedKeyManager load() {
    for (KeyManager km : TlsMaterialLoader.fromDirectory(dir).keyManagers()) {
      if (km instanceof X509ExtendedKeyManager x) {
        return x;
      }
    }
    throw new TlsMaterialException("no X.509 key manager for " + dir, null);
  }

  private FileTime version() {
    try {
      FileTime cert = Files.getLastModifiedTime(dir.resolve(TlsMaterialLoader.CERT_FILE));
      FileTime key = Files.getLastModifiedTime(dir.resolve(TlsMaterialLoader.KEY_FILE));
      return cert.compareTo(key) > 0 ? cert : key;
    } catch (java.io.IOException e) {
      return loadedVersion;
    }
  }

  private X509ExtendedKeyManager current() {
    Instant now = clock.instant();
    if (now.isBefore(nextCheck)) {
      return delegate;
    }
    synchronized (this) {
      if (now.isBefore(nextCheck)) {
        return delegate;
      }
      nextCheck = now.plus(interval);
      FileTime v = version();
      if (v != null && !v.equals(loadedVersion)) {
        try {
          delegate = load();
          loadedVersion = v;
          LOG.info("reloaded the TLS certificate from {}", dir);
        } catch (RuntimeException e) {
          LOG.warn("kept the previous TLS certificate: the files in {} are not usable yet: {}", dir, e.getMessage());
        }
      }
      return delegate;
    }
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return current().getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return current().chooseClientAlias(keyType, issuers, socket);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return current().getServerAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return current().chooseServerAlias(keyType, issuers, socket);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return current().chooseEngineServerAlias(keyType, issuers, engine);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return current().chooseEngineClientAlias(keyType, issuers, engine);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return delegate.getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return delegate.getPrivateKey(alias);
  }
}
