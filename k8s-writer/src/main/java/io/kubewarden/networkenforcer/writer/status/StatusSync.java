package io.kubewarden.networkenforcer.writer.status;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.AcknowledgedViolation;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.ClusterCache;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.kubewarden.networkenforcer.writer.rendering.RenderConditions;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One status sync: for every policy with new observations, pending acknowledgements, a spec edit or
 * new conditions, merge and write the status subresource (only when it changed), locked on the
 * resourceVersion and retried with a fresh read on 409. Then remove the applied acknowledge
 * annotations and emit their events.
 */
public final class StatusSync {
  private static final Logger LOG = LoggerFactory.getLogger(StatusSync.class);
  private static final int CONFLICT_RETRIES = 5;

  private final KubernetesClient client;
  private final ClusterWriter writer;
  private final ClusterCache cache;
  private final RenderConditions renderConditions;
  private final ViolationEvents events;
  private final StatusMerger merger;
  private final MeterRegistry meters;
  private final Clock clock;

  public StatusSync(KubernetesClient client, ClusterWriter writer, ClusterCache cache,
      RenderConditions renderConditions, ViolationEvents events, StatusMerger merger, MeterRegistry meters,
      Clock clock) {
    this.client = client;
    this.writer = writer;
    this.cache = cache;
    this.renderConditions = renderConditions;
    this.events = events;
    this.merger = merger;
    this.meters = meters;
    this.clock = clock;
  }

  /**
   * Syncs every policy; the buffer's entries of written (or dropped) policies are released.
   *
   * @return false when some write failed (the API server is unreachable or keeps conflicting): back off
   */
  public boolean syncAll(ViolationBuffer buffer) {
    Set<String> keys = new LinkedHashSet<>(buffer.policies());
    cache.allPolicies().forEach(p -> keys.add(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()));
    boolean ok = true;
    for (String key : keys) {
      try {
        syncOne(key, buffer.observations(key), () -> buffer.written(key));
      } catch (NotLeaderException e) {
        throw e;
      } catch (RuntimeException e) {
        ok = false;
        meters.counter("network.enforcer.writer.status.failures").increment();
        LOG.warn("status of {} not written ({} observations kept for the next attempt): {}", key,
            buffer.observations(key).size(), e.toString());
      }
    }
    return ok;
  }

  private void syncOne(String key, List<ViolationObservation> observations, Runnable onWritten) {
    int slash = key.indexOf('/');
    String ns = key.substring(0, slash);
    String name = key.substring(slash + 1);
    if (observations.isEmpty()) {
      // Nothing new to count: decide on the cached copy, and read fresh only when there is work.
      WorkloadNetworkPolicy cached = cache.policy(ns, name).orElse(null);
      StatusMerger.Result preview = cached == null ? null : merge(cached, observations);
      if (preview == null || !preview.changed() && preview.annotationsToRemove().isEmpty()) {
        onWritten.run();
        return;
      }
    }
    for (int attempt = 1; ; attempt++) {
      WorkloadNetworkPolicy live = client.resources(WorkloadNetworkPolicy.class).inNamespace(ns).withName(name).get();
      if (live == null) {
        if (!observations.isEmpty()) {
          meters.counter("network.enforcer.writer.violations.dropped", "reason", "policy_missing")
              .increment(observations.size());
          LOG.warn("dropped {} violation observations of policy {}: the policy does not exist", observations.size(),
              key);
        }
        onWritten.run();
        return;
      }
      StatusMerger.Result result = merge(live, observations);
      if (result.changed()) {
        live.setStatus(result.status());
        try {
          writer.updateStatus(live);
        } catch (KubernetesClientException e) {
          if (e.getCode() == HttpURLConnection.HTTP_CONFLICT && attempt < CONFLICT_RETRIES) {
            meters.counter("network.enforcer.writer.status.conflicts").increment();
            LOG.debug("status of {} changed under us (attempt {}); reading it again", key, attempt);
            continue;
          }
          if (e.getCode() == HttpURLConnection.HTTP_BAD_REQUEST || e.getCode() == 422) {
            // The API server will never take this status: do not pin the partition on it forever.
            meters.counter("network.enforcer.writer.violations.dropped", "reason", "status_rejected")
                .increment(observations.size());
            LOG.error("the API server rejects the status of {} ({}); {} observations dropped: {}", key, e.getCode(),
                observations.size(), e.getMessage());
            onWritten.run();
            return;
          }
          throw e;
        }
        meters.counter("network.enforcer.writer.status.writes").increment();
        meters.counter("network.enforcer.writer.violations.written").increment(observations.size());
        if (result.cleared() > 0) {
          LOG.info("cleared {} violation records of {} that the current spec allows", result.cleared(), key);
        }
      }
      onWritten.run();
      finishAcknowledgements(live, result);
      return;
    }
  }

  private StatusMerger.Result merge(WorkloadNetworkPolicy wnp, List<ViolationObservation> observations) {
    String key = wnp.getMetadata().getNamespace() + "/" + wnp.getMetadata().getName();
    return merger.merge(new StatusMerger.Input(wnp.getStatus(), wnp.getMetadata().getGeneration(), observations,
        SpecAllowance.of(wnp.getSpec()), wnp.getMetadata().getAnnotations(), renderConditions.of(key),
        clock.instant()));
  }

  /** The status is written: remove the applied annotations, then tell the collector. */
  private void finishAcknowledgements(WorkloadNetworkPolicy live, StatusMerger.Result result) {
    if (result.annotationsToRemove().isEmpty()) {
      return;
    }
    try {
      writer.removeAnnotations(live, result.annotationsToRemove());
    } catch (NotLeaderException e) {
      throw e;
    } catch (RuntimeException e) {
      // The records are already acknowledged in the status; the next sync removes the annotations.
      LOG.warn("acknowledgements of {}/{} are in the status but their annotations could not be removed: {}",
          live.getMetadata().getNamespace(), live.getMetadata().getName(), e.toString());
      return;
    }
    for (AcknowledgedViolation ack : result.acknowledged()) {
      events.acknowledged(ack);
      meters.counter("network.enforcer.writer.violations.acknowledged").increment();
    }
  }
}
