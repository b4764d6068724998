package io.kubewarden.networkenforcer.processor.topology;

import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.processor.observation.Observation;

/** What {@link TargetProcessor} writes; split by type onto the output topics. */
public sealed interface TargetOutput {

  /** Keyed by target; a null snapshot is a tombstone (learning was reset). */
  record Proposal(ProposalSnapshot snapshot) implements TargetOutput {}

  /** Keyed by policy {@code ns/name}. */
  record Violation(ViolationObservation observation) implements TargetOutput {}

  /** A deny passed on to another target (keyed by it) through the re-attribution topic. */
  record Reattribution(Observation observation) implements TargetOutput {}
}
