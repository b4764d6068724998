package io.kubewarden.networkenforcer.writer.rendering;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the cluster serves AuthorizationPolicy. Asked through discovery and remembered for a
 * while, so installing Istio later is noticed without a restart and without a call per render.
 */
public final class IstioAvailability {
  private static final Logger LOG = LoggerFactory.getLogger(IstioAvailability.class);
  private final KubernetesClient client;
  private final Duration recheckAfter;
  private final Clock clock;
  private Boolean available;
  private Instant checkedAt = Instant.MIN;

  public IstioAvailability(KubernetesClient client, Duration recheckAfter, Clock clock) {
    this.client = client;
    this.recheckAfter = recheckAfter;
    this.clock = clock;
  }

  public synchronized boolean available() {
    Instant now = clock.instant();
    if (available == null || checkedAt.plus(recheckAfter).isBefore(now)) {
      boolean was = Boolean.TRUE.equals(available);
      try {
        available = client.supports(AuthorizationPolicies.API_VERSION, AuthorizationPolicies.KIND);
      } catch (RuntimeException e) {
        LOG.warn(
            "cannot ask the API server whether it serves {}: {}",
            AuthorizationPolicies.API_VERSION,
            e.toString());
        available = false;
      }
      checkedAt = now;
      if (was != available) {
        LOG.info(
            "Istio AuthorizationPolicy API {}", available ? "is available" : "is not installed");
      }
    }
    return available;
  }
}
