package io.kubewarden.networkenforcer.writer.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.kubewarden.networkenforcer.common.crd.AcknowledgedViolation;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The status rules of the API contract as one pure function: merge new observations, clear the
 * records the current spec allows, apply acknowledgements, set counts and observedGeneration. No
 * I/O; the status sync feeds it and writes the result. Each rule is a class of its own: {@link
 * MergeWatermark}, {@link ViolationRecords}, {@link Acknowledgements}, {@link PolicyConditions}.
 */
public final class StatusMerger {

  private final int maxRecords;

  public StatusMerger() {
    this(WorkloadNetworkPolicyStatus.MAX_RECORDS);
  }

  public StatusMerger(int maxRecords) {
    this.maxRecords = maxRecords;
  }

  /**
   * What one status sync starts from.
   *
   * @param current the live status (null for a new policy)
   * @param generation the policy's metadata.generation
   * @param observations new observations for this policy, in arrival order, with where they were
   *     read; those below the status's merge watermark of their partition are already counted and
   *     skipped
   * @param allowedNow true for a record the current spec allows (it is cleared)
   * @param annotations the policy's annotations (acknowledge-&lt;id&gt; = reason)
   * @param renderConditions conditions reported by rendering, replacing the previous ones of their
   *     types
   */
  public record Input(
      WorkloadNetworkPolicyStatus current,
      Long generation,
      List<SourcedObservation> observations,
      Predicate<ViolationRecord> allowedNow,
      Map<String, String> annotations,
      List<Condition> renderConditions,
      Instant now) {
    public Input {
      observations = observations == null ? List.of() : observations;
      allowedNow = allowedNow == null ? r -> false : allowedNow;
      annotations = annotations == null ? Map.of() : annotations;
      renderConditions = renderConditions == null ? List.of() : renderConditions;
      Objects.requireNonNull(now, "now");
    }
  }

  /**
   * The merged status and what to do after it is written.
   *
   * @param acknowledged records moved to acknowledgedViolations by this sync (or earlier, if their
   *     annotation is still there): emit their event after the annotation is removed
   * @param annotationsToRemove acknowledge annotations that were applied
   * @param unmatchedAcknowledgements acknowledge annotations that match no active record; they stay
   * @param cleared records removed because the current spec allows them
   * @param changed whether the status differs from the current one (write only then)
   * @param merged the observations this merge counted (the others were in the status already)
   */
  public record Result(
      WorkloadNetworkPolicyStatus status,
      List<AcknowledgedViolation> acknowledged,
      List<String> annotationsToRemove,
      List<String> unmatchedAcknowledgements,
      int cleared,
      boolean changed,
      List<SourcedObservation> merged) {}

  public Result merge(Input in) {
    // Copies normalise missing lists to empty ones, so "changed" compares like with like.
    WorkloadNetworkPolicyStatus before =
        copy(in.current() == null ? new WorkloadNetworkPolicyStatus() : in.current());
    WorkloadNetworkPolicyStatus next = copy(before);
    String now = DateTimeFormatter.ISO_INSTANT.format(in.now());

    List<SourcedObservation> fresh = MergeWatermark.notYetMerged(next, in.observations());
    ViolationRecords.merge(next, fresh.stream().map(SourcedObservation::observation).toList());
    MergeWatermark.advance(next, fresh);
    int cleared = ViolationRecords.clearAllowed(next, in.allowedNow());
    Acknowledgements acks = Acknowledgements.apply(next, in.annotations(), now);

    trim(next);
    next.setActiveViolationCount(next.getViolations().size());
    next.setObservedGeneration(in.generation());
    next.setConditions(
        PolicyConditions.of(
            before.getConditions(), in.renderConditions(), acks.unmatched(), in.generation(), now));

    boolean changed = !next.equals(before);
    return new Result(
        next, acks.acknowledged(), acks.toRemove(), acks.unmatched(), cleared, changed, fresh);
  }

  private void trim(WorkloadNetworkPolicyStatus s) {
    if (s.getViolations().size() > maxRecords) {
      s.setViolations(new ArrayList<>(s.getViolations().subList(0, maxRecords)));
    }
    if (s.getAcknowledgedViolations().size() > maxRecords) {
      s.setAcknowledgedViolations(
          new ArrayList<>(s.getAcknowledgedViolations().subList(0, maxRecords)));
    }
  }

  /**
   * A copy the merge may change: new lists and new records (their id and timestamp change). The
   * endpoints, acknowledgements and conditions are never mutated, so they are shared. Missing lists
   * become empty ones.
   */
  private static WorkloadNetworkPolicyStatus copy(WorkloadNetworkPolicyStatus s) {
    WorkloadNetworkPolicyStatus c = new WorkloadNetworkPolicyStatus();
    c.setObservedGeneration(s.getObservedGeneration());
    c.setViolationCount(s.getViolationCount());
    c.setActiveViolationCount(s.getActiveViolationCount());
    List<ViolationRecord> records = new ArrayList<>();
    if (s.getViolations() != null) {
      s.getViolations().forEach(r -> records.add(r.copy()));
    }
    c.setViolations(records);
    c.setAcknowledgedViolations(
        s.getAcknowledgedViolations() == null
            ? new ArrayList<>()
            : new ArrayList<>(s.getAcknowledgedViolations()));
    c.setConditions(
        s.getConditions() == null ? new ArrayList<>() : new ArrayList<>(s.getConditions()));
    c.setMergedOffsets(
        s.getMergedOffsets() == null ? new ArrayList<>() : new ArrayList<>(s.getMergedOffsets()));
    return c;
  }
}
