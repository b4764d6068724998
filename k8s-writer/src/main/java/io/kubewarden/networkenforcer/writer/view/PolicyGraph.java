package io.kubewarden.networkenforcer.writer.view;

import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.common.report.ReportModel.Connection;
import io.kubewarden.networkenforcer.common.report.ReportModel.PortCount;
import io.kubewarden.networkenforcer.common.report.ReportModel.Workload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The live view's policy side, added one policy at a time: its target and the peers its rules allow
 * as green edges, its active violation records as red edges, and a row per policy and per
 * violation.
 */
final class PolicyGraph {
  private final PeerResolver peers;
  private final Map<String, Workload> nodes = new TreeMap<>();
  private final Map<String, Map<String, PortCount>> allowed = new TreeMap<>();
  private final Map<String, Map<String, PortCount>> violated = new TreeMap<>();
  private final Map<String, String> lastSeen = new TreeMap<>();
  private final List<ReportModel.Policy> policies = new ArrayList<>();
  private final List<ReportModel.Violation> violations = new ArrayList<>();

  PolicyGraph(PeerResolver peers) {
    this.peers = peers;
  }

  void add(WorkloadNetworkPolicy wnp) {
    String ns = wnp.getMetadata().getNamespace();
    String name = wnp.getMetadata().getName();
    var spec = wnp.getSpec();
    Workload target =
        new Workload(
            ns + "/" + spec.getTargetRef().getKind().name() + "/" + spec.getTargetRef().getName(),
            ns,
            spec.getTargetRef().getKind().name(),
            spec.getTargetRef().getName(),
            true);
    nodes.put(target.id(), target);
    boolean ingress = spec.getDirection() == Direction.Ingress;
    for (AllowedPeer peer : AllowedPeers.of(ns, spec, peers)) {
      nodes.putIfAbsent(peer.node().id(), peer.node());
      String edge =
          ingress
              ? peer.node().id() + " -> " + target.id()
              : target.id() + " -> " + peer.node().id();
      Map<String, PortCount> ports = allowed.computeIfAbsent(edge, k -> new TreeMap<>());
      peer.ports().forEach(p -> ports.putIfAbsent(p.protocol() + "/" + p.port(), p));
    }
    Mode mode = spec.getMode() == null ? Mode.monitor : spec.getMode();
    var status = wnp.getStatus();
    List<ViolationRecord> records = status == null ? List.of() : status.getViolations();
    for (ViolationRecord r : records) {
      addViolation(ns, name, r);
    }
    policies.add(
        new ReportModel.Policy(
            name,
            ns,
            target.id(),
            spec.getDirection().name(),
            mode.name(),
            wnp.getMetadata().getLabels() == null
                ? null
                : wnp.getMetadata().getLabels().get(Labels.PROMOTED_FROM),
            status == null ? 0 : status.getActiveViolationCount(),
            status == null ? 0 : status.getViolationCount(),
            KubectlCommands.forPolicy(ns, name, mode)));
  }

  private void addViolation(String ns, String name, ViolationRecord r) {
    Workload from = ViolationNodes.endpointNode(r.getSource());
    Workload to = ViolationNodes.endpointNode(r.getDest());
    nodes.putIfAbsent(from.id(), from);
    nodes.putIfAbsent(to.id(), to);
    String edge = from.id() + " -> " + to.id();
    String port = r.getDstPort() == 0 ? "*" : Integer.toString(r.getDstPort());
    String protocol = r.getProtocol() == null ? "-" : r.getProtocol().name();
    violated
        .computeIfAbsent(edge, k -> new TreeMap<>())
        .merge(
            protocol + "/" + port,
            new PortCount(protocol, port, 1L),
            (a, b) -> new PortCount(a.protocol(), a.port(), a.count() + 1));
    if (r.getTimestamp() != null) {
      lastSeen.merge(edge, r.getTimestamp(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }
    violations.add(
        new ReportModel.Violation(
            ns + "/" + name,
            r.getId(),
            from.id(),
            to.id(),
            protocol,
            r.getDstPort(),
            r.getHttpMethod() == null ? null : r.getHttpMethod() + " " + r.getHttpPath(),
            r.getAction() == null ? "" : r.getAction().name(),
            r.getTimestamp(),
            KubectlCommands.acknowledge(ns, name, r.getId())));
  }

  List<Workload> nodes() {
    return List.copyOf(nodes.values());
  }

  /** The allowed edges, then the violated ones, each with its ports sorted. */
  List<Connection> edges() {
    List<Connection> edges = new ArrayList<>();
    allowed.forEach((edge, ports) -> edges.add(connection(ReportModel.ALLOWED, edge, ports, null)));
    violated.forEach(
        (edge, ports) ->
            edges.add(connection(ReportModel.VIOLATION, edge, ports, lastSeen.get(edge))));
    return edges;
  }

  List<ReportModel.Policy> policies() {
    return policies;
  }

  List<ReportModel.Violation> violations() {
    return violations;
  }

  private static Connection connection(
      String kind, String edge, Map<String, PortCount> ports, String lastSeen) {
    String[] ends = edge.split(" -> ", 2);
    List<PortCount> sorted = new ArrayList<>(ports.values());
    sorted.sort(
        Comparator.comparing(PortCount::protocol)
            .thenComparing(p -> ReportModel.portNumber(p.port())));
    return new Connection(kind + ": " + edge, ends[0], ends[1], sorted, kind, lastSeen);
  }
}
