package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a violation record must hold before the writer buffers it: a policy it can name to the API
 * server (an empty namespace or name once killed the consumer thread), a port that exists, a
 * bounded number of observations (each is one event, sent one by one), and an HTTP request, when
 * there is one, of a method and a path as ingest makes them. A record that fails goes to {@code
 * dead-letter} with the reason this returns.
 */
public final class ViolationCheck {
  /**
   * The most observations one record may stand for: far above what the processor combines in one
   * combine interval (one second by default) for one target and flow, low enough that the events of
   * one record are sent in about a second.
   */
  public static final long MAX_OBSERVATIONS = 1_000_000;

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

  private ViolationCheck() {}

  /** Empty when the record may be counted; otherwise why not. */
  public static Optional<String> problem(String recordKey, ViolationObservation o) {
    if (!DNS_LABEL.matcher(o.policyNamespace()).matches()) {
      return Optional.of("policyNamespace '" + o.policyNamespace() + "' is not a namespace name");
    }
    if (!DNS_SUBDOMAIN.matcher(o.policyName()).matches()) {
      return Optional.of("policyName '" + o.policyName() + "' is not an object name");
    }
    if (recordKey != null && !recordKey.equals(o.policyKey())) {
      return Optional.of(
          "record key '" + recordKey + "' is not the policy of the value, " + o.policyKey());
    }
    if (o.dstPort() < 0 || o.dstPort() > 65_535) {
      return Optional.of("dstPort " + o.dstPort() + " is not a port");
    }
    if (o.observations() > MAX_OBSERVATIONS) {
      return Optional.of(
          "observations " + o.observations() + " is over the bound of " + MAX_OBSERVATIONS);
    }
    HttpRequest http = o.http();
    if (http != null) {
      if (!HttpRequest.isMethod(http.method())) {
        return Optional.of("http method '" + http.method() + "' is not an HTTP method");
      }
      if (!http.path().startsWith("/") || http.path().length() > HttpRequest.MAX_PATH) {
        // Ingest cuts longer paths: a longer one would only grow the status object.
        return Optional.of(
            "http path of "
                + http.path().length()
                + " characters is not a path of at most "
                + HttpRequest.MAX_PATH);
      }
    }
    return Optional.empty();
  }
}
