package io.kubewarden.networkenforcer.writer.proposals;

import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How far learning has come, read from the leader's informer cache at scrape time (no API request):
 * the proposals whose {@code Converged} condition is True, and those still learning. A standby (no
 * cache) reports NaN, so a sum over the replicas counts the leader's view once.
 */
public final class ConvergenceGauges {
  private ConvergenceGauges() {}

  public static void register(MeterRegistry meters, Supplier<Optional<ClusterCache>> cache) {
    Gauge.builder("network.enforcer.writer.proposals.converged", () -> count(cache, true))
        .description("proposals whose Converged condition is True (leader only)")
        .register(meters);
    Gauge.builder("network.enforcer.writer.proposals.learning", () -> count(cache, false))
        .description("proposals not converged yet (leader only)")
        .register(meters);
  }

  private static double count(Supplier<Optional<ClusterCache>> cache, boolean converged) {
    return cache
        .get()
        .map(c -> (double) c.allProposals().stream().filter(p -> converged(p) == converged).count())
        .orElse(Double.NaN);
  }

  private static boolean converged(WorkloadNetworkPolicyProposal proposal) {
    var status = proposal.getStatus();
    return status != null
        && status.getConditions() != null
        && status.getConditions().stream()
            .anyMatch(
                c ->
                    Convergence.CONDITION_TYPE.equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
