package io.kubewarden.networkenforcer.writer.view;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.report.ProposalRules;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.common.report.ReportModel.Connection;
import io.kubewarden.networkenforcer.common.report.ReportModel.PortCount;
import io.kubewarden.networkenforcer.common.report.ReportModel.Workload;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The live view's model, built only from what the leader's informers hold: proposals as in the
 * learn report (evidence edges), policies as their target's mode plus the edges their rules allow
 * (peers matched to cached workloads by selector), and the active violation records of each
 * policy's status as red edges.
 */
final class LiveViewModel {
  private LiveViewModel() {}

  static ReportModel build(ClusterCache cache, String source, Instant now) {
    List<WorkloadNetworkPolicyProposal> wnpps =
        cache.allProposals().stream()
            .filter(
                p -> ClusterCache.targetOf(p.getMetadata().getNamespace(), p.getSpec()).isPresent())
            .toList();
    List<WorkloadNetworkPolicy> wnps =
        cache.allPolicies().stream()
            .filter(
                p -> ClusterCache.targetOf(p.getMetadata().getNamespace(), p.getSpec()).isPresent())
            .sorted(
                Comparator.comparing((WorkloadNetworkPolicy p) -> p.getMetadata().getNamespace())
                    .thenComparing(p -> p.getMetadata().getName()))
            .toList();
    List<ProposalSnapshot> snapshots =
        wnpps.stream()
            .map(
                p ->
                    new ProposalSnapshot(
                        p.getMetadata().getName(),
                        p.getMetadata().getNamespace(),
                        p.getSpec(),
                        p.getStatus() == null ? List.of() : p.getStatus().getEvidence(),
                        null))
            .toList();
    String backends =
        new TreeSet<>(
                Stream.concat(
                        wnpps.stream().map(p -> p.getSpec()), wnps.stream().map(p -> p.getSpec()))
                    .map(s -> s.getBackend().name())
                    .toList())
            .stream().collect(Collectors.joining(", "));
    ReportModel proposals =
        ReportModel.of(
            source,
            "cluster",
            backends.isEmpty() ? "-" : backends,
            null,
            snapshots,
            ProposalRules::describe,
            List.of());

    PeerResolver peers = new PeerResolver(cache.allWorkloads());
    Map<String, Workload> nodes = new TreeMap<>();
    Map<String, Map<String, PortCount>> allowed = new TreeMap<>();
    Map<String, Map<String, PortCount>> violated = new TreeMap<>();
    Map<String, String> lastSeen = new TreeMap<>();
    List<ReportModel.Policy> policies = new ArrayList<>();
    List<ReportModel.Violation> violations = new ArrayList<>();
    for (WorkloadNetworkPolicy wnp : wnps) {
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
      for (AllowedPeer peer : allowedPeers(ns, spec, peers)) {
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
        Workload from = endpointNode(r.getSource());
        Workload to = endpointNode(r.getDest());
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
                r.getAction() == null ? "" : r.getAction().name(),
                r.getTimestamp(),
                KubectlCommands.acknowledge(ns, name, r.getId())));
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
    List<Connection> edges = new ArrayList<>();
    allowed.forEach((edge, ports) -> edges.add(connection(ReportModel.ALLOWED, edge, ports, null)));
    violated.forEach(
        (edge, ports) ->
            edges.add(connection(ReportModel.VIOLATION, edge, ports, lastSeen.get(edge))));
    ReportModel.Live live = new ReportModel.Live(source, now.toString(), policies, violations);
    return proposals.withLive(
        live,
        List.copyOf(nodes.values()),
        edges,
        p -> KubectlCommands.forProposal(p.namespace(), p.name()));
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

  /** A peer a policy's rule allows, as a graph node, with the ports allowed to or from it. */
  record AllowedPeer(Workload node, List<PortCount> ports) {}

  static List<AllowedPeer> allowedPeers(String namespace, PolicySpec spec, PeerResolver peers) {
    List<AllowedPeer> out = new ArrayList<>();
    if (spec.getKubernetes() != null) {
      var k = spec.getKubernetes();
      boolean ingress = spec.getDirection() == Direction.Ingress;
      if (ingress && k.getIngress() != null) {
        k.getIngress()
            .forEach(
                r ->
                    peerNodes(namespace, r.getFrom(), peers)
                        .forEach(n -> out.add(new AllowedPeer(n, ports(r.getPorts())))));
      } else if (!ingress && k.getEgress() != null) {
        k.getEgress()
            .forEach(
                r ->
                    peerNodes(namespace, r.getTo(), peers)
                        .forEach(n -> out.add(new AllowedPeer(n, ports(r.getPorts())))));
      }
    } else if (spec.getCilium() != null) {
      CiliumPolicy c = spec.getCilium();
      if (spec.getDirection() == Direction.Ingress && c.getIngress() != null) {
        for (CiliumPolicy.IngressRule r : c.getIngress()) {
          List<PortCount> ports = ciliumPorts(r.getToPorts());
          ciliumPeers(
                  namespace,
                  r.getFromEndpoints(),
                  r.getFromEntities(),
                  null,
                  r.getFromCIDR(),
                  r.getFromCIDRSet(),
                  peers)
              .forEach(n -> out.add(new AllowedPeer(n, ports)));
        }
      } else if (spec.getDirection() == Direction.Egress && c.getEgress() != null) {
        for (CiliumPolicy.EgressRule r : c.getEgress()) {
          List<PortCount> ports = ciliumPorts(r.getToPorts());
          ciliumPeers(
                  namespace,
                  r.getToEndpoints(),
                  r.getToEntities(),
                  r.getToFQDNs(),
                  r.getToCIDR(),
                  r.getToCIDRSet(),
                  peers)
              .forEach(n -> out.add(new AllowedPeer(n, ports)));
        }
      }
    } else if (spec.getIstio() != null && spec.getIstio().getRules() != null) {
      for (var rule : spec.getIstio().getRules()) {
        List<PortCount> ports =
            rule.getTo() == null
                ? List.of(new PortCount("TCP", "*", null))
                : rule.getTo().stream()
                    .filter(t -> t.getOperation() != null && t.getOperation().getPorts() != null)
                    .flatMap(t -> t.getOperation().getPorts().stream())
                    .map(p -> new PortCount("TCP", p, null))
                    .toList();
        if (rule.getFrom() == null) {
          out.add(new AllowedPeer(ANYWHERE, ports));
          continue;
        }
        rule.getFrom().stream()
            .filter(f -> f.getSource() != null && f.getSource().getPrincipals() != null)
            .flatMap(f -> f.getSource().getPrincipals().stream())
            .forEach(
                principal -> out.add(new AllowedPeer(ReportModel.peerWorkload(principal), ports)));
      }
    }
    return out;
  }

  /**
   * The nodes of a Cilium rule's peers: endpoints resolved like a NetworkPolicy peer of their
   * namespace ({@code k8s:io.kubernetes.pod.namespace}, else the policy's), names and CIDRs as
   * outside nodes; entity {@code world} is the node of everything outside the cluster (the one the
   * widened rule learns), another entity a node of its own name. A rule without peers selects
   * nothing, so it has none.
   */
  private static List<Workload> ciliumPeers(
      String namespace,
      List<LabelSelector> endpoints,
      List<String> entities,
      List<CiliumPolicy.FqdnSelector> names,
      List<String> cidrs,
      List<CiliumPolicy.CidrRule> cidrSets,
      PeerResolver peers) {
    List<Workload> out = new ArrayList<>();
    if (endpoints != null) {
      for (LabelSelector e : endpoints) {
        Map<String, String> labels = new TreeMap<>();
        String ns = namespace;
        if (e.getMatchLabels() != null) {
          for (Map.Entry<String, String> l : e.getMatchLabels().entrySet()) {
            String key = l.getKey().startsWith("k8s:") ? l.getKey().substring(4) : l.getKey();
            if (key.equals("io.kubernetes.pod.namespace")) {
              ns = l.getValue();
            } else {
              labels.put(key, l.getValue());
            }
          }
        }
        out.add(
            peers.resolve(
                namespace,
                new NetworkPolicyPeerBuilder()
                    .withNewNamespaceSelector()
                    .withMatchLabels(Map.of(Labels.NAMESPACE_NAME, ns))
                    .endNamespaceSelector()
                    .withNewPodSelector()
                    .withMatchLabels(labels)
                    .endPodSelector()
                    .build()));
      }
    }
    if (entities != null) {
      for (String entity : entities) {
        out.add(
            ReportModel.peerWorkload(
                entity.startsWith("world") ? "outside-cluster" : "entity:" + entity));
      }
    }
    if (names != null) {
      for (CiliumPolicy.FqdnSelector f : names) {
        String name = f.getMatchName() != null ? f.getMatchName() : f.getMatchPattern();
        out.add(ReportModel.peerWorkload(ReportModel.NAMES_PREFIX + name));
      }
    }
    if (cidrs != null) {
      cidrs.forEach(c -> out.add(ReportModel.peerWorkload(c)));
    }
    if (cidrSets != null) {
      cidrSets.forEach(c -> out.add(ReportModel.peerWorkload(c.getCidr())));
    }
    return out;
  }

  private static List<PortCount> ciliumPorts(List<CiliumPolicy.PortRule> rules) {
    if (rules == null || rules.isEmpty()) {
      return List.of(new PortCount("any", "*", null));
    }
    List<PortCount> out = new ArrayList<>();
    for (CiliumPolicy.PortRule r : rules) {
      if (r == null || r.getPorts() == null || r.getPorts().isEmpty()) {
        return List.of(new PortCount("any", "*", null));
      }
      r.getPorts()
          .forEach(
              p ->
                  out.add(
                      new PortCount(
                          p.getProtocol() == null ? "any" : p.getProtocol(), p.getPort(), null)));
    }
    return out;
  }

  private static final Workload ANYWHERE =
      new Workload("anywhere", "(anywhere)", "Peer", "anywhere", false);

  private static List<Workload> peerNodes(
      String namespace, List<NetworkPolicyPeer> from, PeerResolver peers) {
    if (from == null || from.isEmpty()) {
      return List.of(ANYWHERE);
    }
    return from.stream().map(p -> peers.resolve(namespace, p)).toList();
  }

  private static List<PortCount> ports(List<NetworkPolicyPort> ports) {
    if (ports == null || ports.isEmpty()) {
      return List.of(new PortCount("any", "*", null));
    }
    return ports.stream()
        .map(
            p ->
                new PortCount(
                    p.getProtocol() == null ? "TCP" : p.getProtocol(),
                    p.getPort() == null
                        ? "*"
                        : p.getPort().getIntVal() != null
                            ? p.getPort().getIntVal().toString()
                            : p.getPort().getStrVal(),
                    null))
        .toList();
  }

  /**
   * The node of a violation's source or destination: its owner workload, else its Istio identity.
   */
  static Workload endpointNode(ViolationEndpoint e) {
    if (e == null) {
      return new Workload("(unknown)", "(unknown)", "Peer", "(unknown)", false);
    }
    if (e.getOwnerKind() != null
        && !e.getOwnerKind().isBlank()
        && e.getOwnerName() != null
        && !e.getOwnerName().isBlank()
        && e.getNamespace() != null
        && !e.getNamespace().isBlank()) {
      return new Workload(
          e.getNamespace() + "/" + e.getOwnerKind() + "/" + e.getOwnerName(),
          e.getNamespace(),
          e.getOwnerKind(),
          e.getOwnerName(),
          false);
    }
    if (e.getIdentity() != null && !e.getIdentity().isBlank()) {
      return ReportModel.peerWorkload(e.getIdentity());
    }
    String ns =
        e.getNamespace() == null || e.getNamespace().isBlank()
            ? ReportModel.OUTSIDE_GROUP
            : e.getNamespace();
    String labels = labels(e.getSelector());
    return new Workload(ns + "/Pods/" + labels, ns, "Pods", labels, false);
  }

  static String labels(LabelSelector s) {
    Map<String, String> m =
        s == null || s.getMatchLabels() == null ? Map.of() : new TreeMap<>(s.getMatchLabels());
    return m.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(",", "{", "}"));
  }

  /** Matches a rule's peer selector to a cached workload of its namespace. */
  static final class PeerResolver {
    private final List<HasMetadata> workloads;

    PeerResolver(List<HasMetadata> workloads) {
      this.workloads =
          workloads.stream()
              .sorted(
                  Comparator.comparing(PeerResolver::kindOf)
                      .thenComparing(w -> w.getMetadata().getName()))
              .toList();
    }

    /** The kind of a cached workload, from its class (list items need not carry {@code kind}). */
    private static String kindOf(HasMetadata w) {
      return w.getClass().getSimpleName();
    }

    Workload resolve(String policyNamespace, NetworkPolicyPeer peer) {
      if (peer.getIpBlock() != null) {
        return ReportModel.peerWorkload(peer.getIpBlock().getCidr());
      }
      String ns = policyNamespace;
      if (peer.getNamespaceSelector() != null) {
        Map<String, String> nsLabels = peer.getNamespaceSelector().getMatchLabels();
        ns = nsLabels == null ? null : nsLabels.get(Labels.NAMESPACE_NAME);
        if (ns == null) {
          String sel = labels(peer.getNamespaceSelector());
          return new Workload(
              "namespaces " + sel, "(namespaces " + sel + ")", "Namespaces", sel, false);
        }
      }
      if (peer.getPodSelector() == null
          || peer.getPodSelector().getMatchLabels() == null
          || peer.getPodSelector().getMatchLabels().isEmpty()) {
        return new Workload(ns + "/Namespace/all pods", ns, "Namespace", "all pods", false);
      }
      Map<String, String> wanted = peer.getPodSelector().getMatchLabels();
      String namespace = ns;
      return workloads.stream()
          .filter(w -> namespace.equals(w.getMetadata().getNamespace()))
          .filter(w -> wanted.equals(selectorOf(w)))
          .findFirst()
          .map(
              w ->
                  new Workload(
                      namespace + "/" + kindOf(w) + "/" + w.getMetadata().getName(),
                      namespace,
                      kindOf(w),
                      w.getMetadata().getName(),
                      false))
          .orElseGet(
              () -> {
                String sel = labels(peer.getPodSelector());
                return new Workload(namespace + "/Pods/" + sel, namespace, "Pods", sel, false);
              });
    }

    /** The labels a workload selects its pods by (a CronJob: its pod template's labels). */
    private static Map<String, String> selectorOf(HasMetadata w) {
      LabelSelector s = null;
      if (w instanceof Deployment d && d.getSpec() != null) {
        s = d.getSpec().getSelector();
      } else if (w instanceof StatefulSet st && st.getSpec() != null) {
        s = st.getSpec().getSelector();
      } else if (w instanceof DaemonSet ds && ds.getSpec() != null) {
        s = ds.getSpec().getSelector();
      } else if (w instanceof CronJob cj
          && cj.getSpec() != null
          && cj.getSpec().getJobTemplate() != null
          && cj.getSpec().getJobTemplate().getSpec() != null
          && cj.getSpec().getJobTemplate().getSpec().getTemplate() != null
          && cj.getSpec().getJobTemplate().getSpec().getTemplate().getMetadata() != null) {
        return Objects.requireNonNullElse(
            cj.getSpec().getJobTemplate().getSpec().getTemplate().getMetadata().getLabels(),
            Map.of());
      }
      return s == null || s.getMatchLabels() == null ? Map.of() : s.getMatchLabels();
    }
  }
}
