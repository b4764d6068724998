package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.resolution.Resolution;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;

/**
 * Turns one ztunnel JSON log line into a flow record. The inbound "connection complete" access log
 * of a mutual-TLS connection is a learning flow (the port is the inner HBONE target port); the
 * authorization lines are denies, the dry-run ones as dry-run denies, with the source found by the
 * inbound peer's pod IP and the destination from the proxy's workload. Everything else is ignored.
 */
public final class ZtunnelLogParser {
  private static final String AUTHORIZATION_POLICY = "AuthorizationPolicy";

  /**
   * Authorization messages that deny, with whether they are dry-run (istio 1.29 texts included).
   */
  private static final Map<String, Verdict> DENY_MESSAGES =
      Map.of(
          "deny policy match", Verdict.DENIED,
          "no allow policies matched", Verdict.DENIED,
          "dry-run: deny policy match", Verdict.DRY_RUN_DENIED,
          "dry-run deny policy match", Verdict.DRY_RUN_DENIED,
          "dry-run: no allow policies match", Verdict.DRY_RUN_DENIED);

  private final WorkloadResolver resolver;
  private final String trustDomain;
  private final Clock clock;

  public ZtunnelLogParser(WorkloadResolver resolver, String trustDomain, Clock clock) {
    this.resolver = resolver;
    this.trustDomain = trustDomain;
    this.clock = clock;
  }

  /** True when the object looks like a ztunnel log line at all (used to tell formats apart). */
  public static boolean looksLikeZtunnel(JsonNode line) {
    return line != null
        && line.isObject()
        && line.hasNonNull("message")
        && line.hasNonNull("scope");
  }

  /**
   * @param fallbackTime the time to use when the line has no {@code time} key (fluent-bit moves it
   *     to the log record's timestamp), or null for "now"
   */
  public ParseOutcome parse(JsonNode line, Instant fallbackTime) {
    if (!looksLikeZtunnel(line)) {
      return ParseOutcome.dropped(DropReason.NOT_A_FLOW);
    }
    String scope = text(line, "scope");
    String message = text(line, "message");
    Instant time = time(line, fallbackTime);
    if ("access".equals(scope)) {
      return "connection complete".equals(message)
          ? accessLog(line, time)
          : ParseOutcome.dropped(DropReason.IGNORED_LOG);
    }
    if (("ztunnel::state".equals(scope) || "state".equals(scope))
        && DENY_MESSAGES.containsKey(message)) {
      return authorizationDeny(line, DENY_MESSAGES.get(message), time);
    }
    return ParseOutcome.dropped(DropReason.IGNORED_LOG);
  }

  private ParseOutcome accessLog(JsonNode line, Instant time) {
    // The outbound copy is logged by the client's ztunnel; the inbound one is the enforced side.
    // A failed connection is reported through the authorization line that caused it.
    if (!"inbound".equals(text(line, "direction")) || line.hasNonNull("error")) {
      return ParseOutcome.dropped(DropReason.IGNORED_LOG);
    }
    String srcIdentity = text(line, "src.identity");
    String dstIdentity = text(line, "dst.identity");
    if (srcIdentity == null || dstIdentity == null) {
      // Without mutual TLS there is no principal to learn.
      return ParseOutcome.dropped(DropReason.IGNORED_LOG);
    }
    int port = port(text(line, "dst.hbone_addr"));
    if (port <= 0) {
      return ParseOutcome.dropped(DropReason.INCOMPLETE);
    }
    Resolution dst =
        resolvePod(
            text(line, "dst.namespace"),
            text(line, "dst.workload"),
            host(text(line, "dst.hbone_addr")));
    if (!dst.resolved()) {
      return ParseOutcome.dropped(dst.dropReason());
    }
    String srcIp = host(text(line, "src.addr"));
    Resolution src = resolvePod(text(line, "src.namespace"), text(line, "src.workload"), srcIp);
    FlowEndpoint srcEndpoint =
        src.resolved()
            ? src.endpoint().toBuilder().identity(srcIdentity).build()
            : identityOnly(
                srcIdentity, text(line, "src.namespace"), text(line, "src.workload"), srcIp);
    if (srcEndpoint == null) {
      return ParseOutcome.dropped(DropReason.INCOMPLETE);
    }
    FlowEndpoint dstEndpoint = dst.endpoint().toBuilder().identity(dstIdentity).build();
    return ParseOutcome.of(
        new FlowRecord(
            time,
            Provider.istio,
            Protocol.TCP,
            port,
            srcEndpoint,
            dstEndpoint,
            Verdict.FORWARDED,
            null,
            1,
            Reporter.DESTINATION));
  }

  private ParseOutcome authorizationDeny(JsonNode line, Verdict verdict, Instant time) {
    String peer = nested(line, "inbound", "peer");
    String workload = nested(line, "proxy", "wl");
    if (peer == null || workload == null || workload.indexOf('/') <= 0) {
      // Re-evaluations of open connections after a policy change carry no peer.
      return ParseOutcome.dropped(DropReason.INCOMPLETE);
    }
    int slash = workload.indexOf('/');
    Resolution dst = resolver.byName(workload.substring(0, slash), workload.substring(slash + 1));
    if (!dst.resolved()) {
      return ParseOutcome.dropped(dst.dropReason());
    }
    String srcIp = host(peer);
    Resolution src = resolver.byIp(srcIp);
    FlowEndpoint srcEndpoint;
    if (src.resolved()) {
      srcEndpoint =
          src.endpoint().toBuilder()
              .identity(identityOf(src.endpoint().namespace(), src.endpoint().serviceAccount()))
              .build();
    } else if (src.pod() != null) {
      srcEndpoint = podIdentityOnly(src.pod(), srcIp);
    } else {
      return ParseOutcome.dropped(src.dropReason());
    }
    FlowEndpoint dstEndpoint =
        dst.endpoint().toBuilder()
            .identity(identityOf(dst.endpoint().namespace(), dst.endpoint().serviceAccount()))
            .build();
    return ParseOutcome.of(
        new FlowRecord(
            time,
            Provider.istio,
            Protocol.TCP,
            0,
            srcEndpoint,
            dstEndpoint,
            verdict,
            policyRef(text(line, "policy")),
            1,
            Reporter.DESTINATION));
  }

  private Resolution resolvePod(String namespace, String podName, String ip) {
    Resolution r =
        namespace != null && podName != null
            ? resolver.byName(namespace, podName)
            : Resolution.dropped(DropReason.UNKNOWN_POD);
    if (r.dropReason() == DropReason.UNKNOWN_POD && ip != null) {
      r = resolver.byIp(ip);
    }
    return r;
  }

  /**
   * An Istio source needs only its identity: a Job, a bare pod or an unknown peer still has one.
   */
  private static FlowEndpoint identityOnly(
      String identity, String namespace, String podName, String ip) {
    String[] parts = identity.replaceFirst("^spiffe://", "").split("/");
    // <trust domain>/ns/<ns>/sa/<sa>
    String ns = parts.length == 5 && "ns".equals(parts[1]) ? parts[2] : namespace;
    String sa = parts.length == 5 && "sa".equals(parts[3]) ? parts[4] : null;
    if (ns == null) {
      return null;
    }
    return FlowEndpoint.builder()
        .namespace(ns)
        .podName(podName)
        .ip(ip)
        .serviceAccount(sa)
        .identity(identity)
        .build();
  }

  private FlowEndpoint podIdentityOnly(Pod pod, String ip) {
    String ns = pod.getMetadata().getNamespace();
    String sa = WorkloadResolver.serviceAccount(pod);
    Map<String, String> labels = pod.getMetadata().getLabels();
    return FlowEndpoint.builder()
        .namespace(ns)
        .podName(pod.getMetadata().getName())
        .ip(ip)
        .podLabels(labels)
        .namespaceLabels(resolver.view().namespaceLabels(ns))
        .serviceAccount(sa)
        .identity(identityOf(ns, sa))
        .build();
  }

  private String identityOf(String namespace, String serviceAccount) {
    return "spiffe://"
        + trustDomain
        + "/ns/"
        + namespace
        + "/sa/"
        + (serviceAccount == null ? "default" : serviceAccount);
  }

  private static PolicyRef policyRef(String policy) {
    if (policy == null || policy.isEmpty()) {
      return null;
    }
    int slash = policy.indexOf('/');
    return slash > 0
        ? new PolicyRef(
            AUTHORIZATION_POLICY, policy.substring(0, slash), policy.substring(slash + 1))
        : new PolicyRef(AUTHORIZATION_POLICY, null, policy);
  }

  private Instant time(JsonNode line, Instant fallback) {
    String t = text(line, "time");
    if (t != null) {
      try {
        return Instant.parse(t);
      } catch (DateTimeParseException e) {
        // fluent-bit keeps an unparsed time as text; the record timestamp is the better guess.
      }
    }
    return fallback != null ? fallback : clock.instant();
  }

  private static String text(JsonNode line, String key) {
    JsonNode v = line.get(key);
    return v == null || v.isNull() || v.isContainerNode() ? null : v.asText();
  }

  /** A span field: {@code "proxy":{"wl":...}}, or flattened as {@code "proxy.wl"}. */
  private static String nested(JsonNode line, String span, String field) {
    JsonNode s = line.get(span);
    if (s != null && s.isObject() && s.hasNonNull(field)) {
      return s.get(field).asText();
    }
    return text(line, span + "." + field);
  }

  /** The host of {@code ip:port} or {@code [v6]:port}. */
  static String host(String address) {
    if (address == null) {
      return null;
    }
    if (address.startsWith("[")) {
      int end = address.indexOf(']');
      return end > 0 ? address.substring(1, end) : null;
    }
    int colon = address.lastIndexOf(':');
    return colon > 0 ? address.substring(0, colon) : address;
  }

  static int port(String address) {
    if (address == null) {
      return -1;
    }
    int colon = address.lastIndexOf(':');
    if (colon < 0 || colon == address.length() - 1) {
      return -1;
    }
    try {
      int p = Integer.parseInt(address.substring(colon + 1));
      return p > 0 && p <= 65535 ? p : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
