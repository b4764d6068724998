package io.kubewarden.networkenforcer.common.report;

import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the HTML report shows, as plain data the page reads as JSON: workloads (graph nodes), the
 * connections between them (edges, one per source and destination with the ports seen), every
 * proposal with its rules and evidence, and what was dropped and why. The writer's live view adds
 * {@link Live}: the cluster's policies with their modes and the violations in their status.
 *
 * @param source the capture learned from
 * @param warnings what decides whether the proposals can be trusted (events lost, not converged):
 *     the page shows them first
 * @param totals record counts of the run; null in the live view
 * @param live policies and violations; null in a report of learn or replay
 */
public record ReportModel(
    String source,
    String format,
    String backend,
    List<String> warnings,
    Totals totals,
    List<Workload> workloads,
    List<Connection> connections,
    List<Proposal> proposals,
    List<Dropped> dropped,
    Live live) {

  /**
   * Kinds of edges: learned (proposal evidence), allowed (a policy's rules), violation (status
   * records).
   */
  public static final String LEARNED = "learned";

  public static final String ALLOWED = "allowed";
  public static final String VIOLATION = "violation";

  /** Records read, flows published, records dropped and lines that could not be read. */
  public record Totals(long recordsRead, long flowsPublished, long dropped, long unreadable) {}

  /**
   * A graph node; {@code id} is {@code namespace/Kind/name}. {@code learned} when it has a proposal
   * of its own.
   */
  public record Workload(String id, String namespace, String kind, String name, boolean learned) {}

  /**
   * A graph edge from the connecting workload to the one it connects to.
   *
   * @param kind {@link #LEARNED}, {@link #ALLOWED} or {@link #VIOLATION}
   * @param lastSeen the newest observation of a violation edge; null otherwise
   */
  public record Connection(
      String id,
      String source,
      String target,
      List<PortCount> ports,
      String kind,
      String lastSeen) {}

  /**
   * Observations of one port of a connection; count null where nothing is counted (a policy's
   * rule).
   */
  public record PortCount(String protocol, String port, Long count) {}

  /**
   * One proposal: the workload it is for, its direction, its rules, and the commands that act on
   * it.
   */
  public record Proposal(
      String name,
      String namespace,
      String workload,
      String direction,
      List<Rule> rules,
      List<Command> commands) {}

  /**
   * A {@code kubectl} command line the page shows for a person to run; the page itself runs
   * nothing.
   */
  public record Command(String purpose, String command) {}

  /** What the live view adds: where it comes from, the policies and the violations they hold. */
  public record Live(
      String cluster, String generatedAt, List<Policy> policies, List<Violation> violations) {}

  /**
   * A WorkloadNetworkPolicy: its target node, mode and violation counts, and the commands that act
   * on it.
   */
  public record Policy(
      String name,
      String namespace,
      String workload,
      String direction,
      String mode,
      String promotedFrom,
      long activeViolations,
      long violationCount,
      List<Command> commands) {}

  /**
   * One active violation record of a policy, with the command that acknowledges it; {@code
   * request}: the refused HTTP request ({@code PUT /admin}), null for a violation of the
   * connection.
   */
  public record Violation(
      String policy,
      long id,
      String source,
      String target,
      String protocol,
      int port,
      String request,
      String action,
      String lastSeen,
      Command acknowledge) {}

  /**
   * One rule of a proposal: the peer as the processor keys it, the peer's node id, a readable
   * description of what the rule allows, and the evidence per port.
   */
  public record Rule(
      int index, String peer, String peerWorkload, String description, List<PortSeen> ports) {}

  /**
   * Evidence of one port of a rule; {@code seenAs}: the kinds of record that proved it (null when
   * the data plane did not say).
   */
  public record PortSeen(
      String protocol,
      String port,
      String firstSeen,
      String lastSeen,
      long count,
      List<String> seenAs) {}

  /** Records not learned at one stage for one reason, with samples when the stage keeps them. */
  public record Dropped(String stage, String reason, long count, List<String> samples) {}

  /** The Istio principal form: [trust-domain/]ns/NAMESPACE/sa/NAME. */
  private static final Pattern PRINCIPAL =
      Pattern.compile("^(?:spiffe://)?(?:[^/]+/)?ns/([^/]+)/sa/([^/]+)$");

  /** The peer key of the Kubernetes backend: NAMESPACE/Kind/name. */
  private static final Pattern WORKLOAD = Pattern.compile("^([^/]+)/([A-Z][A-Za-z]*)/([^/]+)$");

  /**
   * Builds the model from the proposals learn wrote.
   *
   * @param ruleDescriptions a readable line per rule of a proposal, in rule order
   */
  public static ReportModel of(
      String source,
      String format,
      String backend,
      Totals totals,
      List<ProposalSnapshot> snapshots,
      Function<ProposalSnapshot, List<String>> ruleDescriptions,
      List<Dropped> dropped) {
    Map<String, Workload> workloads = new TreeMap<>();
    Map<String, Map<String, PortCount>> portsByConnection = new TreeMap<>();
    List<Proposal> proposals = new ArrayList<>();
    for (ProposalSnapshot snapshot : snapshots) {
      var ref = snapshot.spec().getTargetRef();
      String kind = ref.getKind().name();
      Workload target =
          new Workload(
              snapshot.namespace() + "/" + kind + "/" + ref.getName(),
              snapshot.namespace(),
              kind,
              ref.getName(),
              true);
      workloads.put(target.id(), target);
      boolean ingress = snapshot.spec().getDirection() == Direction.Ingress;
      List<String> descriptions = ruleDescriptions.apply(snapshot);
      List<Rule> rules = new ArrayList<>();
      for (RuleEvidence evidence : snapshot.evidence()) {
        Workload peer = peerWorkload(evidence.getPeer());
        workloads.putIfAbsent(peer.id(), peer);
        List<PortSeen> ports = evidence.getPorts().stream().map(ReportModel::portSeen).toList();
        String description =
            evidence.getRule() < descriptions.size() ? descriptions.get(evidence.getRule()) : "";
        rules.add(new Rule(evidence.getRule(), evidence.getPeer(), peer.id(), description, ports));
        String connection =
            ingress ? peer.id() + " -> " + target.id() : target.id() + " -> " + peer.id();
        Map<String, PortCount> counts =
            portsByConnection.computeIfAbsent(connection, k -> new TreeMap<>());
        // Both ends' proposals saw the same flows: keep the larger count, never their sum.
        for (PortSeen p : ports) {
          counts.merge(
              p.protocol() + "/" + p.port(),
              new PortCount(p.protocol(), p.port(), p.count()),
              (a, b) -> a.count() >= b.count() ? a : b);
        }
      }
      proposals.add(
          new Proposal(
              snapshot.name(),
              snapshot.namespace(),
              target.id(),
              snapshot.spec().getDirection().name(),
              rules,
              List.of()));
    }
    List<Connection> connections = new ArrayList<>();
    portsByConnection.forEach(
        (id, ports) -> {
          String[] ends = id.split(" -> ", 2);
          List<PortCount> sorted = new ArrayList<>(ports.values());
          sorted.sort(
              Comparator.comparing(PortCount::protocol).thenComparing(p -> portNumber(p.port())));
          connections.add(new Connection(id, ends[0], ends[1], sorted, LEARNED, null));
        });
    proposals.sort(Comparator.comparing(Proposal::namespace).thenComparing(Proposal::name));
    return new ReportModel(
        source,
        format,
        backend,
        List.of(),
        totals,
        List.copyOf(workloads.values()),
        connections,
        proposals,
        List.copyOf(dropped),
        null);
  }

  /**
   * This model with the live view's additions: further nodes (a node already present keeps its
   * entry unless the new one is {@code learned}), further edges, the commands of each proposal.
   */
  public ReportModel withLive(
      Live live,
      List<Workload> moreWorkloads,
      List<Connection> moreConnections,
      Function<Proposal, List<Command>> proposalCommands) {
    Map<String, Workload> nodes = new TreeMap<>();
    workloads.forEach(w -> nodes.put(w.id(), w));
    moreWorkloads.forEach(w -> nodes.merge(w.id(), w, (a, b) -> a.learned() ? a : b));
    List<Connection> edges = new ArrayList<>(connections);
    edges.addAll(moreConnections);
    List<Proposal> withCommands =
        proposals.stream()
            .map(
                p ->
                    new Proposal(
                        p.name(),
                        p.namespace(),
                        p.workload(),
                        p.direction(),
                        p.rules(),
                        proposalCommands.apply(p)))
            .toList();
    return new ReportModel(
        source,
        format,
        backend,
        warnings,
        totals,
        List.copyOf(nodes.values()),
        edges,
        withCommands,
        dropped,
        live);
  }

  /** This model with the warnings the page shows above everything else. */
  public ReportModel withWarnings(List<String> first) {
    return new ReportModel(
        source,
        format,
        backend,
        List.copyOf(first),
        totals,
        workloads,
        connections,
        proposals,
        dropped,
        live);
  }

  /**
   * The graph node a peer key stands for: a workload, an Istio service account, or the key itself.
   */
  public static Workload peerWorkload(String peer) {
    if (FlowEndpoint.isLabelPeerKey(peer)) {
      // Pods known only by their labels: in their namespace, named by the labels (which may hold
      // a '/', so before the workload pattern).
      int first = peer.indexOf('/');
      return new Workload(
          peer,
          peer.substring(0, first),
          FlowEndpoint.LABEL_PEER_KIND,
          peer.substring(first + FlowEndpoint.LABEL_PEER_KIND.length() + 2),
          false);
    }
    Matcher w = WORKLOAD.matcher(peer);
    if (w.matches()) {
      return new Workload(peer, w.group(1), w.group(2), w.group(3), false);
    }
    Matcher sa = PRINCIPAL.matcher(peer);
    if (sa.matches()) {
      return new Workload(
          sa.group(1) + "/ServiceAccount/" + sa.group(2),
          sa.group(1),
          "ServiceAccount",
          sa.group(2),
          false);
    }
    if (peer.startsWith(NAMES_PREFIX)) {
      // A cilium-backend peer learned by DNS name: outside the cluster, named by its names.
      return new Workload(
          peer, OUTSIDE_GROUP, "Names", peer.substring(NAMES_PREFIX.length()), false);
    }
    if (OUTSIDE.matcher(peer).matches()) {
      // An ipBlock peer (an address, a range or "outside-cluster"): grouped apart from namespaces.
      return new Workload(peer, OUTSIDE_GROUP, "Addresses", peer, false);
    }
    return new Workload(peer, "(unknown)", "Peer", peer, false);
  }

  /** The key prefix of a peer learned by DNS name (cilium backend). */
  public static final String NAMES_PREFIX = "dns:";

  /** The group of peers outside the cluster, shown like a namespace. */
  public static final String OUTSIDE_GROUP = "(outside the cluster)";

  private static final Pattern OUTSIDE = Pattern.compile("outside-cluster|[0-9a-fA-F:.]+/\\d{1,3}");

  private static PortSeen portSeen(PortEvidence p) {
    return new PortSeen(
        p.getProtocol(),
        p.getPort(),
        p.getFirstSeen(),
        p.getLastSeen(),
        p.getCount(),
        p.getSeenAs() == null || p.getSeenAs().isEmpty() ? null : List.copyOf(p.getSeenAs()));
  }

  /** A port for sorting: its number, named ports last. */
  public static long portNumber(String port) {
    try {
      return Long.parseLong(port);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }

  /** Namespaces in the graph, sorted. */
  public List<String> namespaces() {
    return workloads.stream().map(Workload::namespace).distinct().sorted().toList();
  }

  /** Helper for callers that group counts by reason. */
  public static List<Dropped> dropped(
      String stage, Map<String, Long> byReason, Map<String, List<String>> samples) {
    List<Dropped> out = new ArrayList<>();
    new LinkedHashMap<>(byReason)
        .forEach(
            (reason, n) ->
                out.add(new Dropped(stage, reason, n, samples.getOrDefault(reason, List.of()))));
    return out;
  }
}
