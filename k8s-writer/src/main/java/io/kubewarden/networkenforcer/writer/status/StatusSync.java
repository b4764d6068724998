package io.kubewarden.networkenforcer.writer.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.AcknowledgedViolation;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.writer.apply.ApiRefusals;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.PermanentError;
import io.kubewarden.networkenforcer.writer.reconcile.RetryInfo;
import io.kubewarden.networkenforcer.writer.rendering.RenderConditions;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status step of the policy reconciler: merge the observations that are due, the rendering
 * conditions and the acknowledgements into one status and write it through the status subresource,
 * only when it changed, locked on the resourceVersion (409: read again, merge again). The merge
 * watermark travels in that same write, so a record is counted at most once. Then the applied
 * acknowledge annotations are removed and their events emitted.
 */
public final class StatusSync {
  private static final Logger LOG = LoggerFactory.getLogger(StatusSync.class);
  private static final int CONFLICT_RETRIES = 5;

  /**
   * Internal errors in a row before a status is dropped (with the controller's back-off, ~8 s),
   * counted by the policies queue: its key's failures in a row ({@link RetryInfo}).
   */
  static final int SERVER_ERROR_ATTEMPTS = 5;

  private final KubernetesClient client;
  private final ClusterWriter writer;
  private final ClusterCache cache;
  private final ViolationBuffer buffer;
  private final RenderConditions renderConditions;
  private final ViolationEvents events;
  private final StatusMerger merger;
  private final MeterRegistry meters;
  private final Clock clock;
  private final DeadLetters deadLetters;

  public StatusSync(
      KubernetesClient client,
      ClusterWriter writer,
      ClusterCache cache,
      ViolationBuffer buffer,
      RenderConditions renderConditions,
      ViolationEvents events,
      StatusMerger merger,
      MeterRegistry meters,
      Clock clock,
      DeadLetters deadLetters) {
    this.deadLetters = deadLetters;
    this.client = client;
    this.writer = writer;
    this.cache = cache;
    this.buffer = buffer;
    this.renderConditions = renderConditions;
    this.events = events;
    this.merger = merger;
    this.meters = meters;
    this.clock = clock;
  }

  /**
   * Syncs the status of one policy. Throws when the write failed for a reason that may pass (the
   * caller retries with back-off; the observations stay buffered and their offsets uncommitted).
   *
   * @param retry the key's failures in a row before this attempt, which bound the internal errors
   */
  public void sync(ObjectKey key, RetryInfo retry) {
    List<SourcedObservation> observations = buffer.dueObservations(key.toString());
    if (observations.isEmpty()) {
      // Nothing new to count: decide on the cached copy, and read fresh only when there is work.
      WorkloadNetworkPolicy cached = cache.policy(key.namespace(), key.name()).orElse(null);
      StatusMerger.Result preview = cached == null ? null : merge(cached, observations);
      if (preview == null || !preview.changed() && preview.annotationsToRemove().isEmpty()) {
        return;
      }
    }
    for (int attempt = 1; ; attempt++) {
      WorkloadNetworkPolicy live =
          client
              .resources(WorkloadNetworkPolicy.class)
              .inNamespace(key.namespace())
              .withName(key.name())
              .get();
      if (live == null) {
        if (!observations.isEmpty()) {
          meters
              .counter("network.enforcer.writer.violations.dropped", "reason", "policy_missing")
              .increment(observations.size());
          LOG.warn(
              "dropped {} violation observations of policy {}: the policy does not exist",
              observations.size(),
              key);
        }
        buffer.written(key.toString(), observations);
        return;
      }
      StatusMerger.Result result = merge(live, observations);
      if (result.changed()) {
        live.setStatus(result.status());
        // The write commits these records (the next leader skips them): their events leave first.
        events.flush();
        try {
          writer.updateStatus(live);
        } catch (KubernetesClientException e) {
          ApiRefusals kind = ApiRefusals.of(e);
          if (kind == ApiRefusals.CONFLICT && attempt < CONFLICT_RETRIES) {
            meters.counter("network.enforcer.writer.status.conflicts").increment();
            LOG.debug("status of {} changed under us (attempt {}); reading it again", key, attempt);
            continue;
          }
          if (retryCannotFix(retry, e, kind)) {
            // The API server will not take this status: do not pin the partition on it forever.
            String reason =
                "the API server rejects the status of "
                    + key
                    + " ("
                    + e.getCode()
                    + "): "
                    + e.getMessage();
            park(key, observations, reason, e);
            meters
                .counter("network.enforcer.writer.violations.dropped", "reason", "status_rejected")
                .increment(observations.size());
            buffer.written(key.toString(), observations);
            throw new PermanentError(
                "StatusRejected",
                reason
                    + "; "
                    + observations.size()
                    + " observations parked on the dead-letter topic",
                e);
          }
          throw e;
        }
        meters.counter("network.enforcer.writer.status.writes").increment();
        meters
            .counter("network.enforcer.writer.violations.written")
            .increment(result.merged().size());
        int repeats = observations.size() - result.merged().size();
        if (repeats > 0) {
          meters.counter("network.enforcer.writer.violations.already.merged").increment(repeats);
        }
        if (result.cleared() > 0) {
          LOG.info(
              "cleared {} violation records of {} that the current spec allows",
              result.cleared(),
              key);
        }
      }
      buffer.written(key.toString(), observations);
      finishAcknowledgements(key, live, result);
      return;
    }
  }

  /**
   * The observations a refused status would have counted, to the dead-letter topic as they were
   * read (nothing is lost); throws when that fails, so the status is tried again later.
   */
  private void park(
      ObjectKey key, List<SourcedObservation> observations, String reason, Throwable error) {
    for (SourcedObservation o : observations) {
      byte[] value;
      try {
        value = Json.mapper().writeValueAsBytes(o.observation());
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cannot write a violation observation as JSON", e);
      }
      deadLetters.send(o.topic(), o.partition(), o.offset(), key.toString(), value, reason, error);
    }
  }

  /**
   * Invalid, forbidden or too large (any 4xx but a conflict, or a 404: the next attempt reads the
   * policy as gone), or an internal error on the {@value #SERVER_ERROR_ATTEMPTS}th attempt in a
   * row.
   */
  private static boolean retryCannotFix(
      RetryInfo retry, KubernetesClientException e, ApiRefusals kind) {
    if (kind == ApiRefusals.PERMANENT) {
      return e.getCode() != HttpURLConnection.HTTP_NOT_FOUND;
    }
    return kind == ApiRefusals.SERVER_ERROR && retry.attempt() >= SERVER_ERROR_ATTEMPTS;
  }

  private StatusMerger.Result merge(
      WorkloadNetworkPolicy wnp, List<SourcedObservation> observations) {
    String key = wnp.getMetadata().getNamespace() + "/" + wnp.getMetadata().getName();
    return merger.merge(
        new StatusMerger.Input(
            wnp.getStatus(),
            wnp.getMetadata().getGeneration(),
            observations,
            SpecAllowance.of(wnp.getSpec()),
            wnp.getMetadata().getAnnotations(),
            renderConditions.of(key),
            clock.instant()));
  }

  /** The status is written: remove the applied annotations, then tell the collector. */
  private void finishAcknowledgements(
      ObjectKey key, WorkloadNetworkPolicy live, StatusMerger.Result result) {
    if (result.annotationsToRemove().isEmpty()) {
      return;
    }
    try {
      writer.removeAnnotations(live, result.annotationsToRemove());
    } catch (NotLeaderException e) {
      throw e;
    } catch (RuntimeException e) {
      // The records are already acknowledged in the status; the retry removes the annotations.
      LOG.warn(
          "acknowledgements of {} are in the status but their annotations could not be removed: {}",
          key,
          e.toString());
      throw e;
    }
    for (AcknowledgedViolation ack : result.acknowledged()) {
      events.acknowledged(key.toString(), ack);
      meters.counter("network.enforcer.writer.violations.acknowledged").increment();
    }
  }
}
