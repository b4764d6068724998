package io.kubewarden.networkenforcer.writer.observations;

import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;

/**
 * Identities in the form of the API contract, {@code cluster.local/ns/<ns>/sa/<sa>}: without the
 * {@code spiffe://} scheme that ztunnel logs carry. Applied to every observation the writer reads,
 * so records written by an older processor come out right too.
 */
public final class Principals {
  private static final String SCHEME = "spiffe://";

  private Principals() {}

  public static String withoutScheme(String identity) {
    return identity != null && identity.startsWith(SCHEME)
        ? identity.substring(SCHEME.length())
        : identity;
  }

  public static ViolationEndpoint withoutScheme(ViolationEndpoint e) {
    if (e == null || e.getIdentity() == null || !e.getIdentity().startsWith(SCHEME)) {
      return e;
    }
    return new ViolationEndpoint(
        e.getNamespace(),
        e.getOwnerKind(),
        e.getOwnerName(),
        withoutScheme(e.getIdentity()),
        e.getSelector());
  }

  public static ViolationObservation withoutScheme(ViolationObservation o) {
    ViolationEndpoint source = withoutScheme(o.source());
    ViolationEndpoint dest = withoutScheme(o.dest());
    if (source == o.source() && dest == o.dest()) {
      return o;
    }
    return o.withEndpoints(source, dest);
  }
}
