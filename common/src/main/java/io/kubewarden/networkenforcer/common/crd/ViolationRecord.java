package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Mode;
import java.util.Objects;

/**
 * One entry of {@code status.violations}. Two records are repeats of each other when everything but
 * id and timestamp is equal ({@link #sameViolationAs}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ViolationRecord {
  @JsonPropertyDescription("Unique per policy: the violationCount when the record was added.")
  private long id;

  /** Last occurrence, RFC 3339. */
  @JsonPropertyDescription("Last occurrence (RFC 3339).")
  private String timestamp;

  private ViolationEndpoint source;
  private ViolationEndpoint dest;
  private Protocol protocol;

  /** 0 when unknown; always 0 on Istio. */
  @JsonPropertyDescription("Destination port; 0 when unknown (always 0 on istio).")
  private int dstPort;

  @JsonPropertyDescription("monitor: seen in monitor mode; protect: blocked by the data plane.")
  private Mode action;

  private String denyingPolicyNamespace;
  private String denyingPolicyName;

  @JsonPropertyDescription(
      "The HTTP request's method, when the violation is one request on an allowed connection: Cilium's"
          + " proxy refused it, or monitor mode found it outside the policy's HTTP rules. Absent for a"
          + " violation of the connection itself.")
  private String httpMethod;

  @JsonPropertyDescription(
      "The HTTP request's URL path (no query string), with httpMethod; at most 256 characters.")
  private String httpPath;

  public ViolationRecord() {}

  public ViolationRecord copy() {
    ViolationRecord r = new ViolationRecord();
    r.id = id;
    r.timestamp = timestamp;
    r.source = source;
    r.dest = dest;
    r.protocol = protocol;
    r.dstPort = dstPort;
    r.action = action;
    r.denyingPolicyNamespace = denyingPolicyNamespace;
    r.denyingPolicyName = denyingPolicyName;
    r.httpMethod = httpMethod;
    r.httpPath = httpPath;
    return r;
  }

  /** Same source, dest, protocol, port, action, denying policy and HTTP request: a repeat. */
  @JsonIgnore
  public boolean sameViolationAs(ViolationRecord o) {
    return Objects.equals(source, o.source)
        && Objects.equals(dest, o.dest)
        && protocol == o.protocol
        && dstPort == o.dstPort
        && action == o.action
        && Objects.equals(denyingPolicyNamespace, o.denyingPolicyNamespace)
        && Objects.equals(denyingPolicyName, o.denyingPolicyName)
        && Objects.equals(httpMethod, o.httpMethod)
        && Objects.equals(httpPath, o.httpPath);
  }

  public long getId() {
    return id;
  }

  public void setId(long id) {
    this.id = id;
  }

  public String getTimestamp() {
    return timestamp;
  }

  public void setTimestamp(String timestamp) {
    this.timestamp = timestamp;
  }

  public ViolationEndpoint getSource() {
    return source;
  }

  public void setSource(ViolationEndpoint source) {
    this.source = source;
  }

  public ViolationEndpoint getDest() {
    return dest;
  }

  public void setDest(ViolationEndpoint dest) {
    this.dest = dest;
  }

  public Protocol getProtocol() {
    return protocol;
  }

  public void setProtocol(Protocol protocol) {
    this.protocol = protocol;
  }

  public int getDstPort() {
    return dstPort;
  }

  public void setDstPort(int dstPort) {
    this.dstPort = dstPort;
  }

  public Mode getAction() {
    return action;
  }

  public void setAction(Mode action) {
    this.action = action;
  }

  public String getDenyingPolicyNamespace() {
    return denyingPolicyNamespace;
  }

  public void setDenyingPolicyNamespace(String v) {
    this.denyingPolicyNamespace = v;
  }

  public String getDenyingPolicyName() {
    return denyingPolicyName;
  }

  public void setDenyingPolicyName(String v) {
    this.denyingPolicyName = v;
  }

  public String getHttpMethod() {
    return httpMethod;
  }

  public void setHttpMethod(String httpMethod) {
    this.httpMethod = httpMethod;
  }

  public String getHttpPath() {
    return httpPath;
  }

  public void setHttpPath(String httpPath) {
    this.httpPath = httpPath;
  }

  /** The refused HTTP request, or null for a violation of the connection itself. */
  @JsonIgnore
  public HttpRequest httpRequest() {
    return httpMethod == null || httpPath == null
        ? null
        : new HttpRequest(httpMethod, httpPath, false);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ViolationRecord r
        && id == r.id
        && Objects.equals(timestamp, r.timestamp)
        && sameViolationAs(r);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        id,
        timestamp,
        source,
        dest,
        protocol,
        dstPort,
        action,
        denyingPolicyNamespace,
        denyingPolicyName,
        httpMethod,
        httpPath);
  }
}
