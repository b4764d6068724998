package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectEvents;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.reconcile.PermanentError;
import java.util.Optional;

/**
 * What a refusal the API server will repeat leaves behind for one proposal: its record on the
 * dead-letter topic (no other proposal waits for it), {@code Ready=False} and an Event on the
 * proposal, or, when it was never created, an Event on its workload (where {@code kubectl describe}
 * shows it).
 */
final class PermanentFailures {
  private final ClusterCache cache;
  private final DesiredProposals desired;
  private final DeadLetters deadLetters;
  private final ObjectEvents events;
  private final ProposalStatus status;
  private final SessionRecords session;

  PermanentFailures(
      ClusterCache cache,
      DesiredProposals desired,
      DeadLetters deadLetters,
      ObjectEvents events,
      ProposalStatus status,
      SessionRecords session) {
    this.cache = cache;
    this.desired = desired;
    this.deadLetters = deadLetters;
    this.events = events;
    this.status = status;
    this.session = session;
  }

  void report(ObjectKey key, PermanentError error) {
    Optional<HasMetadata> workload = Optional.empty();
    DesiredProposals.Desired wish = desired.peek(key).orElse(null);
    if (wish != null) {
      if (wish.record() != null) {
        deadLetters.send(wish.record(), error.reason() + ": " + error.getMessage(), error);
      }
      if (wish.snapshot() != null) {
        workload =
            ClusterCache.targetOf(key.namespace(), wish.snapshot().spec())
                .flatMap(target -> cache.workload(target.workload()));
      }
      desired.done(key, wish);
    }
    WorkloadNetworkPolicyProposal live = cache.proposal(key.namespace(), key.name()).orElse(null);
    if (live == null) {
      // Never created: the workload's Events are where `kubectl describe` shows it.
      // Once per reason, not once per record of a target that keeps learning.
      if (workload.isPresent() && session.firstReportOnWorkload(key, error.reason())) {
        events.warning(
            workload.get(), error.reason(), "proposal " + key.name() + ": " + error.getMessage());
      }
      return;
    }
    if (!ProposalStatus.readyBecause(live, error.reason())) {
      events.warning(live, error.reason(), error.getMessage()); // once per refusal, not per attempt
    }
    status.write(
        key,
        live,
        session.keptEvidence(key, live),
        ProposalStatus.ready(error.reason(), false, error.getMessage()),
        null,
        ProposalReconciler.generation(live));
  }
}
