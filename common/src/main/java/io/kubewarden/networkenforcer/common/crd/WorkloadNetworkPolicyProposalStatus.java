package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Status of a proposal (ours): per-rule, per-port evidence of what was observed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WorkloadNetworkPolicyProposalStatus {
  @JsonPropertyDescription("Per rule and port: first seen, last seen and observation count.")
  private List<RuleEvidence> evidence = new ArrayList<>();

  @JsonPropertyDescription(
      "Ready (and the reason when the writer cannot apply, repair or promote the proposal) and Converged (whether learning has seen enough traffic).")
  private List<Condition> conditions;

  @JsonPropertyDescription("The metadata.generation the conditions were written for.")
  private Long observedGeneration;

  @JsonPropertyDescription(
      "Events the data plane reported lost within the quiet period, per provider and node: while there are any, Converged is False (EventsLost).")
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  private List<LostEvents> lostEvents;

  public WorkloadNetworkPolicyProposalStatus() {}

  public WorkloadNetworkPolicyProposalStatus(List<RuleEvidence> evidence) {
    this.evidence = evidence;
  }

  public List<RuleEvidence> getEvidence() {
    return evidence;
  }

  public void setEvidence(List<RuleEvidence> evidence) {
    this.evidence = evidence;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<LostEvents> getLostEvents() {
    return lostEvents;
  }

  public void setLostEvents(List<LostEvents> lostEvents) {
    this.lostEvents = lostEvents;
  }

  /**
   * The number of rules with evidence, for the {@code Rules} printer column (kubectl's JSONPath
   * cannot count a list). Derived, so it is written but never read back.
   */
  @JsonProperty(value = "ruleCount", access = JsonProperty.Access.READ_ONLY)
  @JsonPropertyDescription(
      "The number of rules with evidence (derived; shown as the Rules column).")
  public int getRuleCount() {
    // Distinct rules: with the cilium backend, the addresses behind one name share a rule.
    return evidence == null
        ? 0
        : (int) evidence.stream().map(RuleEvidence::getRule).distinct().count();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorkloadNetworkPolicyProposalStatus s
        && Objects.equals(evidence, s.evidence)
        && Objects.equals(conditions, s.conditions)
        && Objects.equals(observedGeneration, s.observedGeneration)
        && Objects.equals(lostEvents, s.lostEvents);
  }

  @Override
  public int hashCode() {
    return Objects.hash(evidence, conditions, observedGeneration, lostEvents);
  }
}
