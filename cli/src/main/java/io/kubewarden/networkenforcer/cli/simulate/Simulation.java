package io.kubewarden.networkenforcer.cli.simulate;

import io.kubewarden.networkenforcer.common.evaluation.Decision;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Evaluates flows against a set of candidate policies, with the semantics of a cluster where all of
 * them are enforced: per direction and layer, a flow is allowed when any policy that selects its
 * end allows it (NetworkPolicies add up; so do ALLOW AuthorizationPolicies), denied when some
 * select it and none allows it, and a flow denied by either layer is denied. A decision the record
 * cannot settle (unknown port, unresolved named port) is reported apart and never counted as a
 * deny.
 */
final class Simulation {
  private static final Direction[] SIDES = {Direction.Ingress, Direction.Egress};
  private static final Comparator<Connection> ORDER =
      Comparator.comparing(Connection::target)
          .thenComparing(Connection::direction)
          .thenComparing(Connection::peer)
          .thenComparing(Connection::protocol)
          .thenComparingInt(Connection::port);

  private final List<CandidatePolicy> candidates;
  private final Map<ConnectionKey, Group> denied = new HashMap<>();
  private final Map<ConnectionKey, Group> undetermined = new HashMap<>();
  // Identity: two policies may hold equal rules, and hashing specs per flow would cost.
  private final Set<CandidatePolicy.Rule> matchedRules =
      Collections.newSetFromMap(new IdentityHashMap<>());
  private final Map<CandidatePolicy, Long> selectedFlows = new IdentityHashMap<>();
  private long flows;

  /** A connection seen from one policy end: who, which way, with whom, on what. */
  record ConnectionKey(
      String target, Direction direction, String peer, Protocol protocol, int port) {}

  /**
   * One reported connection.
   *
   * @param count flow observations (a record may stand for several)
   * @param policies the candidates that selected it and did not allow it
   */
  record Connection(
      String target,
      Direction direction,
      String peer,
      Protocol protocol,
      int port,
      long count,
      Instant firstSeen,
      Instant lastSeen,
      List<String> policies) {}

  /** A rule that allowed none of the flows its policy selected. */
  record UnmatchedRule(String policy, Direction direction, int index, String rule) {}

  /** Everything a simulation found. */
  record Result(
      long flows,
      List<Connection> denied,
      List<Connection> undetermined,
      List<UnmatchedRule> unmatchedRules,
      Map<String, Long> selectedFlows) {
    boolean anyDenied() {
      return !denied.isEmpty();
    }
  }

  private static final class Group {
    long count;
    Instant first;
    Instant last;
    final Set<String> policies = new TreeSet<>();

    void add(FlowRecord flow, List<CandidatePolicy> by) {
      count += flow.count();
      first = first == null || flow.time().isBefore(first) ? flow.time() : first;
      last = last == null || flow.time().isAfter(last) ? flow.time() : last;
      by.forEach(c -> policies.add(c.label()));
    }
  }

  Simulation(List<CandidatePolicy> candidates) {
    this.candidates = List.copyOf(candidates);
  }

  void accept(FlowRecord flow) {
    flows++;
    for (Direction side : SIDES) {
      Map<CandidatePolicy.Layer, List<CandidatePolicy>> selecting =
          new EnumMap<>(CandidatePolicy.Layer.class);
      Map<CandidatePolicy.Layer, Decision> outcome = new EnumMap<>(CandidatePolicy.Layer.class);
      for (CandidatePolicy c : candidates) {
        Decision d = c.evaluate(flow, side);
        if (d == Decision.NOT_SELECTED) {
          continue;
        }
        selectedFlows.merge(c, 1L, Long::sum);
        selecting.computeIfAbsent(c.layer(), l -> new ArrayList<>()).add(c);
        outcome.merge(c.layer(), d, Simulation::combine);
        for (CandidatePolicy.Rule rule : c.rules()) {
          if (rule.direction() == side
              && !matchedRules.contains(rule)
              && c.ruleAllows(rule, flow)) {
            matchedRules.add(rule);
          }
        }
      }
      if (outcome.containsValue(Decision.DENIED)) {
        List<CandidatePolicy> by = new ArrayList<>();
        outcome.forEach(
            (layer, d) -> {
              if (d == Decision.DENIED) {
                by.addAll(selecting.get(layer));
              }
            });
        denied.computeIfAbsent(key(flow, side), k -> new Group()).add(flow, by);
      } else if (outcome.containsValue(Decision.UNDETERMINED)) {
        List<CandidatePolicy> by = new ArrayList<>();
        outcome.forEach(
            (layer, d) -> {
              if (d == Decision.UNDETERMINED) {
                by.addAll(selecting.get(layer));
              }
            });
        undetermined.computeIfAbsent(key(flow, side), k -> new Group()).add(flow, by);
      }
    }
  }

  /** Within one layer: any allow wins, then an undetermined answer, then deny. */
  private static Decision combine(Decision a, Decision b) {
    if (a == Decision.ALLOWED || b == Decision.ALLOWED) {
      return Decision.ALLOWED;
    }
    if (a == Decision.UNDETERMINED || b == Decision.UNDETERMINED) {
      return Decision.UNDETERMINED;
    }
    return Decision.DENIED;
  }

  Result result() {
    List<UnmatchedRule> unmatched = new ArrayList<>();
    Map<String, Long> selected = new LinkedHashMap<>();
    for (CandidatePolicy c : candidates) {
      selected.put(c.label(), selectedFlows.getOrDefault(c, 0L));
      for (CandidatePolicy.Rule rule : c.rules()) {
        if (!matchedRules.contains(rule)) {
          unmatched.add(new UnmatchedRule(c.label(), rule.direction(), rule.index(), rule.text()));
        }
      }
    }
    return new Result(flows, connections(denied), connections(undetermined), unmatched, selected);
  }

  private static List<Connection> connections(Map<ConnectionKey, Group> groups) {
    List<Connection> out = new ArrayList<>();
    groups.forEach(
        (k, g) ->
            out.add(
                new Connection(
                    k.target(),
                    k.direction(),
                    k.peer(),
                    k.protocol(),
                    k.port(),
                    g.count,
                    g.first,
                    g.last,
                    List.copyOf(g.policies))));
    out.sort(ORDER);
    return out;
  }

  private static ConnectionKey key(FlowRecord flow, Direction side) {
    FlowEndpoint own = side == Direction.Ingress ? flow.dst() : flow.src();
    FlowEndpoint peer = side == Direction.Ingress ? flow.src() : flow.dst();
    return new ConnectionKey(name(own), side, name(peer), flow.protocol(), flow.dstPort());
  }

  /**
   * A workload as {@code ns/Kind/name}; otherwise its identity, pod or IP, whichever the record
   * has.
   */
  static String name(FlowEndpoint e) {
    if (e.workload().isPresent()) {
      return e.workload().get().key();
    }
    if (e.identity() != null && !e.identity().isEmpty()) {
      return e.identity();
    }
    if (e.podName() != null && e.namespace() != null) {
      return e.namespace() + "/pod/" + e.podName();
    }
    return e.ip() != null ? e.ip() : "unknown";
  }
}
