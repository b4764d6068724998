package io.kubewarden.networkenforcer.ingest.transport;

import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The one client a server of ours accepts, by the name in its certificate (common name, DNS or URI
 * subject alternative name). A certificate of the same CA with another name, which any workload
 * that may request certificates from that CA can get, is refused.
 */
public record ClientIdentity(String name) {
  private static final int DNS = 2;
  private static final int URI = 6;

  public ClientIdentity {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("the pinned client name is empty");
    }
  }

  /** Empty when the session's client certificate carries the name; else why it is refused. */
  public Optional<String> refusal(SSLSession session) {
    if (session == null) {
      return Optional.of("no TLS session");
    }
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return Optional.of("no client certificate");
    }
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
      return Optional.of("no client certificate");
    }
    List<String> names = names(leaf);
    return names.contains(name)
        ? Optional.empty()
        : Optional.of(
            "client certificate " + names + " is not " + name + ", the only client accepted");
  }

  /** The common name(s), then the DNS and URI subject alternative names of a certificate. */
  static List<String> names(X509Certificate certificate) {
    List<String> names = new ArrayList<>();
    try {
      for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          names.add(String.valueOf(rdn.getValue()));
        }
      }
    } catch (InvalidNameException e) {
      // No usable subject: the alternative names decide.
    }
    try {
      Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
      if (alternatives != null) {
        for (List<?> alternative : alternatives) {
          int type = (Integer) alternative.get(0);
          if (type == DNS || type == URI) {
            names.add(String.valueOf(alternative.get(1)));
          }
        }
      }
    } catch (CertificateParsingException e) {
      // Unparseable extension: only the common name counts.
    }
    return names;
  }
}
