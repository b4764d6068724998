package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.crd.LostEvents;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalStatus;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.conditions.Conditions;
import io.kubewarden.networkenforcer.writer.conditions.ProposalConditions;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status of one proposal: evidence, the conditions (the writer's {@code Ready}, the processor's
 * {@code Converged}, held False while the data plane lost events, see {@link
 * ConvergenceUnderLoss}), the loss and {@code observedGeneration}, in one apply of the status
 * subresource, and only when something changed.
 */
final class ProposalStatus {
  private static final Logger LOG = LoggerFactory.getLogger(ProposalStatus.class);

  private final ClusterWriter writer;
  private final LossLedger losses;
  private final Clock clock;

  /**
   * @param losses the data plane's loss, which holds {@code Converged} false; null when not
   *     followed
   */
  ProposalStatus(ClusterWriter writer, LossLedger losses, Clock clock) {
    this.writer = writer;
    this.losses = losses;
    this.clock = clock;
  }

  static Condition ready(String reason, boolean ok, String message) {
    return Conditions.of(ProposalConditions.READY, ok, reason, message);
  }

  /** Whether the proposal's Ready condition has this reason. */
  static boolean readyBecause(WorkloadNetworkPolicyProposal p, String reason) {
    Condition ready =
        Conditions.find(
            p.getStatus() == null ? null : p.getStatus().getConditions(), ProposalConditions.READY);
    return ready != null && reason.equals(ready.getReason());
  }

  /** Ready=False for a permanent refusal, written for the current generation. */
  static boolean refusedAsItIs(WorkloadNetworkPolicyProposal p) {
    Long generation = p.getMetadata().getGeneration();
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(
                c ->
                    ProposalConditions.READY.equals(c.getType())
                        && Conditions.FALSE.equals(c.getStatus())
                        && (ProposalConditions.REASON_FORBIDDEN.equals(c.getReason())
                            || ProposalConditions.REASON_INVALID.equals(c.getReason())
                            || ProposalConditions.REASON_TOO_LARGE.equals(c.getReason()))
                        && Objects.equals(c.getObservedGeneration(), generation));
  }

  /**
   * Writes the status unless the live one says the same. {@code fromRecord} null keeps the
   * processor's verdict the status holds (no new record, or a processor from before convergence).
   * When a hold ends, the {@link LossConsumer} has every proposal looked at again.
   */
  void write(
      ObjectKey key,
      WorkloadNetworkPolicyProposal live,
      List<RuleEvidence> evidence,
      Condition ready,
      Convergence fromRecord,
      long generation) {
    WorkloadNetworkPolicyProposalStatus current = live == null ? null : live.getStatus();
    List<Condition> conditionsBefore = current == null ? null : current.getConditions();
    Condition before = Conditions.find(conditionsBefore, ProposalConditions.READY);
    Condition convergedBefore = Conditions.find(conditionsBefore, Convergence.CONDITION_TYPE);
    Condition settledBefore =
        Conditions.find(conditionsBefore, ProposalConditions.LEARNING_SETTLED);
    ConvergenceUnderLoss.Outcome convergence =
        ConvergenceUnderLoss.decide(
            ConvergenceUnderLoss.learned(fromRecord, convergedBefore, settledBefore),
            losses,
            clock.instant());
    Condition convergedNow = convergence.converged();
    List<LostEvents> lostBefore =
        current == null || current.getLostEvents() == null ? List.of() : current.getLostEvents();
    boolean sameConverged =
        Conditions.sameVerdict(convergedBefore, convergedNow)
            && Conditions.sameVerdict(settledBefore, convergence.learningSettled());
    if (current != null
        && Conditions.sameFor(before, ready, generation)
        && sameConverged
        && Objects.equals(current.getEvidence(), evidence)
        && Objects.equals(current.getObservedGeneration(), generation)
        && lostBefore.equals(convergence.lostEvents())) {
      return;
    }
    String now = DateTimeFormatter.ISO_INSTANT.format(clock.instant());
    List<Condition> conditions =
        new ArrayList<>(List.of(Conditions.written(ready, before, generation, now)));
    if (convergedNow != null) {
      // The processor decides convergence (flow time); its transition time is kept as it gave it.
      conditions.add(new ConditionBuilder(convergedNow).withObservedGeneration(generation).build());
    }
    if (convergence.learningSettled() != null) {
      conditions.add(
          new ConditionBuilder(convergence.learningSettled())
              .withObservedGeneration(generation)
              .build());
    }
    WorkloadNetworkPolicyProposalStatus status = new WorkloadNetworkPolicyProposalStatus(evidence);
    status.setConditions(conditions);
    status.setObservedGeneration(generation);
    status.setLostEvents(convergence.lostEvents().isEmpty() ? null : convergence.lostEvents());
    WorkloadNetworkPolicyProposal s = new WorkloadNetworkPolicyProposal();
    s.setMetadata(
        new ObjectMetaBuilder().withName(key.name()).withNamespace(key.namespace()).build());
    s.setStatus(status);
    try {
      writer.applyStatus(s);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        LOG.info("proposal {} was deleted before its status was written", key);
        return;
      }
      ProposalRefusals.statusRefused(e);
    }
  }
}
