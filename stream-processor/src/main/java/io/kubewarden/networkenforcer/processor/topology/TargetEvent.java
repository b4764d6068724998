package io.kubewarden.networkenforcer.processor.topology;

import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.processor.observation.Observation;

/**
 * Anything that reaches a target's partition: an observation, a policy change or a control command.
 * The three input streams are merged as this type in front of {@link TargetProcessor}; it never
 * leaves the task, so it needs no serde.
 */
public sealed interface TargetEvent {

  /** A flow seen by the target. */
  record Observed(Observation observation) implements TargetEvent {}

  /** The target's policy was created or changed ({@code policy} set) or deleted (null). */
  record PolicyChanged(PolicySnapshot policy) implements TargetEvent {}

  /** A command from the writer. */
  record Command(ControlCommand command) implements TargetEvent {}
}
