package io.kubewarden.networkenforcer.common.violation;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * One observed violation of one policy, value of the violations topic keyed by {@code ns/name} of
 * the policy. It carries every field of a status violation record plus where it came from.
 *
 * @param count how many connections the provider aggregated into this record (Goldmane);
 *     informative only: one observation counts one in {@code violationCount}, whatever its count
 *     (api.md)
 * @param observations how many flow records (observations in api.md's sense) this record stands
 *     for: more than one when the processor combined repeated flow records before the repartition.
 *     The writer adds this to {@code violationCount} and sends this many events, so combining
 *     changes no count. Records of older versions carry none and stand for one.
 * @param http the HTTP request an L7 proxy refused (Cilium), or one monitor mode found outside the
 *     policy's HTTP rules: its method and path. Null for a violation of the connection itself.
 */
public record ViolationObservation(
    String policyNamespace,
    String policyName,
    Instant timestamp,
    ViolationEndpoint source,
    ViolationEndpoint dest,
    Protocol protocol,
    int dstPort,
    Mode action,
    String denyingPolicyNamespace,
    String denyingPolicyName,
    Provider provider,
    Backend backend,
    Direction direction,
    long count,
    long observations,
    HttpRequest http) {

  @JsonCreator // the canonical one, also for records of older versions without observations
  public ViolationObservation {
    Objects.requireNonNull(policyNamespace, "policyNamespace");
    Objects.requireNonNull(policyName, "policyName");
    Objects.requireNonNull(timestamp, "timestamp");
    Objects.requireNonNull(action, "action");
    if (count <= 0) {
      count = 1;
    }
    if (observations <= 0) {
      observations = 1;
    }
    if (http != null && http.connectionSeen()) {
      // Which record of the connection came first is ingest's business, not the violation's.
      http = new HttpRequest(http.method(), http.path(), http.truncated());
    }
  }

  /** One observation: a record of one flow record. */
  public ViolationObservation(
      String policyNamespace,
      String policyName,
      Instant timestamp,
      ViolationEndpoint source,
      ViolationEndpoint dest,
      Protocol protocol,
      int dstPort,
      Mode action,
      String denyingPolicyNamespace,
      String denyingPolicyName,
      Provider provider,
      Backend backend,
      Direction direction,
      long count) {
    this(
        policyNamespace,
        policyName,
        timestamp,
        source,
        dest,
        protocol,
        dstPort,
        action,
        denyingPolicyNamespace,
        denyingPolicyName,
        provider,
        backend,
        direction,
        count,
        1,
        null);
  }

  /** This violation, of the HTTP request {@code http} (null: of the connection itself). */
  public ViolationObservation withHttp(HttpRequest http) {
    return copy(source, dest, http);
  }

  /** This violation between other ends. */
  public ViolationObservation withEndpoints(ViolationEndpoint source, ViolationEndpoint dest) {
    return copy(source, dest, http);
  }

  private ViolationObservation copy(
      ViolationEndpoint source, ViolationEndpoint dest, HttpRequest http) {
    return new ViolationObservation(
        policyNamespace,
        policyName,
        timestamp,
        source,
        dest,
        protocol,
        dstPort,
        action,
        denyingPolicyNamespace,
        denyingPolicyName,
        provider,
        backend,
        direction,
        count,
        observations,
        http);
  }

  /** {@code ns/name} of the policy: the key of the violations topic. */
  @JsonIgnore
  public String policyKey() {
    return policyNamespace + "/" + policyName;
  }

  /** A status record of this observation, without an id (the status merge assigns it). */
  public ViolationRecord toRecord() {
    ViolationRecord r = new ViolationRecord();
    r.setTimestamp(DateTimeFormatter.ISO_INSTANT.format(timestamp));
    r.setSource(source);
    r.setDest(dest);
    r.setProtocol(protocol);
    r.setDstPort(dstPort);
    r.setAction(action);
    r.setDenyingPolicyNamespace(denyingPolicyNamespace);
    r.setDenyingPolicyName(denyingPolicyName);
    if (http != null) {
      r.setHttpMethod(http.method());
      r.setHttpPath(http.path());
    }
    return r;
  }
}
