package io.kubewarden.networkenforcer.writer.telemetry;

import io.kubewarden.networkenforcer.common.crd.AcknowledgedViolation;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.observations.Principals;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.LoggerProvider;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The two OpenTelemetry log events of the API contract, with their exact attribute keys. Empty
 * values are left out, so a query never has to tell "" from missing.
 */
public final class ViolationEvents {
  public static final String SCOPE = "network-enforcer";
  public static final String OBSERVED = "policy_violation_observed";
  public static final String ACKNOWLEDGED = "policy_violation_acknowledged";

  /**
   * How long a status write waits for the events of its records to leave (a collector may be down).
   */
  private static final Duration FLUSH_WAIT = Duration.ofSeconds(2);

  private final Logger logger;
  private final LoggerProvider provider;

  public ViolationEvents(LoggerProvider provider) {
    this.provider = provider;
    this.logger = provider.get(SCOPE);
  }

  /**
   * Exports the events emitted so far, waiting at most 2 s. Called before a status write commits
   * their records: a writer killed after that write would otherwise lose the events still batched
   * (the next leader skips records the status holds, so it never sends them).
   */
  public void flush() {
    if (provider instanceof SdkLoggerProvider sdk) {
      sdk.forceFlush().join(FLUSH_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The attribute carrying an event's stable id (OpenTelemetry semantic convention {@code
   * log.record.uid}): equal for every send of the same record, so a collector can drop a repeat.
   */
  public static final String EVENT_ID = "log.record.uid";

  /**
   * One event per observation, at once (the status follows within one sync interval): a record that
   * stands for several observations (combined in the processor) sends that many, each with its own
   * id.
   */
  public void observed(SourcedObservation sourced) {
    long observations = sourced.observation().observations();
    for (long i = 0; i < observations; i++) {
      observed(sourced, sourced.eventId(i));
    }
  }

  private void observed(SourcedObservation sourced, String eventId) {
    ViolationObservation o = sourced.observation();
    AttributesBuilder a = Attributes.builder();
    a.put(EVENT_ID, eventId);
    String provider =
        o.backend() != null
            ? o.backend().value()
            : o.provider() != null ? o.provider().backend().value() : null;
    put(a, "enforcement.provider", provider);
    put(a, "action", o.action().value());
    endpoint(a, "source.workload.", o.source());
    endpoint(a, "destination.workload.", o.dest());
    put(a, "network.transport", o.protocol() == null ? null : o.protocol().name());
    a.put("destination.port", (long) o.dstPort());
    put(a, "policy.ref.namespace", o.policyNamespace());
    put(a, "policy.ref.name", o.policyName());
    // Beyond the contract: the refused request's semantic-convention attributes, when there is one.
    put(a, "http.request.method", o.http() == null ? null : o.http().method());
    put(a, "url.path", o.http() == null ? null : o.http().path());
    emit(OBSERVED, Severity.WARN, o.timestamp(), a.build());
  }

  /** After the status patch and the annotation removal went through. */
  public void acknowledged(String policyKey, AcknowledgedViolation ack) {
    ViolationRecord r = ack.getViolation();
    AttributesBuilder a = Attributes.builder();
    a.put(
        EVENT_ID,
        UUID.nameUUIDFromBytes(
                (policyKey + "/acknowledged/" + r.getId()).getBytes(StandardCharsets.UTF_8))
            .toString());
    a.put("id", r.getId());
    put(a, "timestamp", r.getTimestamp());
    put(a, "reason", ack.getReason());
    ViolationEndpoint s = r.getSource();
    ViolationEndpoint d = r.getDest();
    put(a, "source.namespace", s == null ? null : s.getNamespace());
    put(a, "source.workload.kind", s == null ? null : s.getOwnerKind());
    put(a, "source.workload.name", s == null ? null : s.getOwnerName());
    put(
        a,
        "source.workload.identity",
        s == null ? null : Principals.withoutScheme(s.getIdentity()));
    put(a, "dest.namespace", d == null ? null : d.getNamespace());
    put(a, "dest.workload.kind", d == null ? null : d.getOwnerKind());
    put(a, "dest.workload.name", d == null ? null : d.getOwnerName());
    put(a, "dest.workload.identity", d == null ? null : Principals.withoutScheme(d.getIdentity()));
    put(a, "protocol", r.getProtocol() == null ? null : r.getProtocol().name());
    a.put("dstPort", (long) r.getDstPort());
    put(a, "action", r.getAction() == null ? null : r.getAction().value());
    put(a, "denyingPolicy.namespace", r.getDenyingPolicyNamespace());
    put(a, "denyingPolicy.name", r.getDenyingPolicyName());
    put(a, "httpMethod", r.getHttpMethod());
    put(a, "httpPath", r.getHttpPath());
    emit(ACKNOWLEDGED, Severity.INFO, Instant.now(), a.build());
  }

  private static void endpoint(AttributesBuilder a, String prefix, ViolationEndpoint e) {
    if (e == null) {
      return;
    }
    put(a, prefix + "name", e.getOwnerName());
    put(a, prefix + "namespace", e.getNamespace());
    put(a, prefix + "kind", e.getOwnerKind());
    put(a, prefix + "identity", Principals.withoutScheme(e.getIdentity()));
  }

  private static void put(AttributesBuilder a, String key, String value) {
    if (value != null && !value.isEmpty()) {
      a.put(key, value);
    }
  }

  private void emit(String name, Severity severity, Instant at, Attributes attributes) {
    logger
        .logRecordBuilder()
        .setEventName(name)
        // The body repeats the name for collectors and backends that do not show event names.
        .setBody(name)
        .setSeverity(severity)
        .setSeverityText(severity == Severity.WARN ? "WARN" : "INFO")
        .setTimestamp(at)
        .setAllAttributes(attributes)
        .emit();
  }
}
