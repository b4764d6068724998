package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Status of a WorkloadNetworkPolicy. {@code violationCount} only grows; {@code activeViolationCount
 * == violations.size()}; both lists newest first, at most 100.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WorkloadNetworkPolicyStatus {
  public static final int MAX_RECORDS = 100;

  @JsonPropertyDescription("The spec generation this status reflects.")
  private Long observedGeneration;

  @JsonPropertyDescription("Every observed violation, repeats included; never decreases.")
  private long violationCount;

  @JsonPropertyDescription("The number of entries in violations.")
  private long activeViolationCount;

  // The caps of the contract, also enforced by the API server.
  @Size(max = MAX_RECORDS)
  @JsonPropertyDescription("Unacknowledged violations, newest first, at most 100.")
  private List<ViolationRecord> violations = new ArrayList<>();

  @Size(max = MAX_RECORDS)
  @JsonPropertyDescription("Acknowledged violations, newest first, at most 100.")
  private List<AcknowledgedViolation> acknowledgedViolations = new ArrayList<>();

  /** Ours: rendering problems, unmatched acknowledgements. */
  @JsonPropertyDescription("Rendering problems and acknowledgements that match no record.")
  private List<Condition> conditions = new ArrayList<>();

  /** Ours: the merge watermark per partition of the violations topic (idempotent merge). */
  @JsonPropertyDescription(
      "Per partition of the violations topic, the first offset not merged yet: a record below "
          + "it is already counted and is never merged twice.")
  private List<MergedOffset> mergedOffsets = new ArrayList<>();

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public long getViolationCount() {
    return violationCount;
  }

  public void setViolationCount(long violationCount) {
    this.violationCount = violationCount;
  }

  public long getActiveViolationCount() {
    return activeViolationCount;
  }

  public void setActiveViolationCount(long activeViolationCount) {
    this.activeViolationCount = activeViolationCount;
  }

  public List<ViolationRecord> getViolations() {
    return violations;
  }

  public void setViolations(List<ViolationRecord> violations) {
    this.violations = violations;
  }

  public List<AcknowledgedViolation> getAcknowledgedViolations() {
    return acknowledgedViolations;
  }

  public void setAcknowledgedViolations(List<AcknowledgedViolation> v) {
    this.acknowledgedViolations = v;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public List<MergedOffset> getMergedOffsets() {
    return mergedOffsets;
  }

  public void setMergedOffsets(List<MergedOffset> mergedOffsets) {
    this.mergedOffsets = mergedOffsets;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorkloadNetworkPolicyStatus s
        && Objects.equals(observedGeneration, s.observedGeneration)
        && violationCount == s.violationCount
        && activeViolationCount == s.activeViolationCount
        && Objects.equals(violations, s.violations)
        && Objects.equals(acknowledgedViolations, s.acknowledgedViolations)
        && Objects.equals(conditions, s.conditions)
        && Objects.equals(mergedOffsets, s.mergedOffsets);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        observedGeneration,
        violationCount,
        activeViolationCount,
        violations,
        acknowledgedViolations,
        conditions,
        mergedOffsets);
  }
}
