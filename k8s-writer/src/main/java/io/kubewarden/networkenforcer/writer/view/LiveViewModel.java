package io.kubewarden.networkenforcer.writer.view;

import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.report.ProposalRules;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The live view's model, built only from what the leader's informers hold: proposals as in the
 * learn report (evidence edges), policies as their target's mode plus the edges their rules allow
 * (peers matched to cached workloads by selector, {@link PolicyGraph}), and the active violation
 * records of each policy's status as red edges.
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
    ReportModel proposals = proposals(source, wnpps, wnps);

    PolicyGraph graph = new PolicyGraph(new PeerResolver(cache.allWorkloads()));
    wnps.forEach(graph::add);
    ReportModel.Live live =
        new ReportModel.Live(source, now.toString(), graph.policies(), graph.violations());
    return proposals.withLive(
        live,
        graph.nodes(),
        graph.edges(),
        p -> KubectlCommands.forProposal(p.namespace(), p.name()));
  }

  /** The proposals as the learn report shows them, with the backends of proposals and policies. */
  private static ReportModel proposals(
      String source, List<WorkloadNetworkPolicyProposal> wnpps, List<WorkloadNetworkPolicy> wnps) {
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
    return ReportModel.of(
        source,
        "cluster",
        backends.isEmpty() ? "-" : backends,
        null,
        snapshots,
        ProposalRules::describe,
        List.of());
  }
}
