package io.kubewarden.networkenforcer.common.evaluation;

import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import java.util.List;
import java.util.Objects;

/**
 * Does the reduced Istio ALLOW model allow a flow (inbound to {@code dst})?
 *
 * <ul>
 *   <li>Only TCP is seen by ztunnel: any other protocol is NOT_SELECTED (the policy cannot deny
 *       what the data plane never sees, so calling it DENIED would report false violations).
 *   <li>{@code selector} must select {@code dst}'s pod labels, else NOT_SELECTED (absent selector:
 *       the whole namespace, as in Istio).
 *   <li>No rules under ALLOW: deny everything. A rule matches when any {@code from} source matches
 *       (absent/empty {@code from}: any source) and any {@code to} operation matches (absent/empty
 *       {@code to}: any operation). A source or operation without principals/ports does not
 *       constrain.
 *   <li>Principals are matched against {@link FlowEndpoint#principal()}; a source without an
 *       identity never matches a principals list, not even {@code *}.
 *   <li>Port 0 (unknown) against a rule whose ports constrain: UNKNOWN, so UNDETERMINED unless
 *       another rule allows the flow outright.
 * </ul>
 */
public final class IstioPolicyEvaluator {
  private IstioPolicyEvaluator() {}

  public static Decision evaluate(
      IstioPolicy policy, FlowEndpoint src, FlowEndpoint dst, Protocol protocol, int port) {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(src, "src");
    Objects.requireNonNull(dst, "dst");
    Objects.requireNonNull(protocol, "protocol");
    if (protocol != Protocol.TCP) {
      return Decision.NOT_SELECTED;
    }
    if (policy.getSelector() != null
        && !LabelSelectorMatcher.matches(policy.getSelector(), dst.podLabels())) {
      return Decision.NOT_SELECTED;
    }
    List<IstioPolicy.Rule> rules = policy.getRules();
    String identity = src.identity();
    int principalStart = IstioPrincipalMatcher.principalStart(identity);
    boolean unknown = false;
    for (int i = 0, n = rules == null ? 0 : rules.size(); i < n; i++) {
      IstioPolicy.Rule rule = rules.get(i);
      if (rule == null) {
        continue;
      }
      if (!anySourceMatches(rule.getFrom(), identity, principalStart)) {
        continue;
      }
      Match operation = anyOperationMatches(rule.getTo(), port);
      if (operation == Match.YES) {
        return Decision.ALLOWED;
      }
      unknown |= operation == Match.UNKNOWN;
    }
    return unknown ? Decision.UNDETERMINED : Decision.DENIED;
  }

  private static boolean anySourceMatches(
      List<IstioPolicy.From> from, String identity, int principalStart) {
    if (from == null || from.isEmpty()) {
      return true;
    }
    for (int i = 0, n = from.size(); i < n; i++) {
      IstioPolicy.From entry = from.get(i);
      IstioPolicy.Source source = entry == null ? null : entry.getSource();
      List<String> principals = source == null ? null : source.getPrincipals();
      if (principals == null || principals.isEmpty()) {
        return true;
      }
      for (int p = 0, m = principals.size(); p < m; p++) {
        if (IstioPrincipalMatcher.matches(principals.get(p), identity, principalStart)) {
          return true;
        }
      }
    }
    return false;
  }

  private static Match anyOperationMatches(List<IstioPolicy.To> to, int port) {
    if (to == null || to.isEmpty()) {
      return Match.YES;
    }
    boolean unknown = false;
    for (int i = 0, n = to.size(); i < n; i++) {
      IstioPolicy.To entry = to.get(i);
      IstioPolicy.Operation operation = entry == null ? null : entry.getOperation();
      List<String> ports = operation == null ? null : operation.getPorts();
      if (ports == null || ports.isEmpty()) {
        return Match.YES;
      }
      for (int p = 0, m = ports.size(); p < m; p++) {
        Match match = IstioPortMatcher.matches(ports.get(p), port);
        if (match == Match.YES) {
          return Match.YES;
        }
        unknown |= match == Match.UNKNOWN;
      }
    }
    return unknown ? Match.UNKNOWN : Match.NO;
  }
}
