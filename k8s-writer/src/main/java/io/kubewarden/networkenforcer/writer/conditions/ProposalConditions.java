package io.kubewarden.networkenforcer.writer.conditions;

/**
 * The conditions the writer puts on a WorkloadNetworkPolicyProposal ({@code status.conditions[]}):
 * {@code Ready} and its reasons, and what it writes of the processor's {@code Converged} while the
 * data plane loses events.
 */
public final class ProposalConditions {
  public static final String READY = "Ready";

  /**
   * True: the proposal holds what was learned (plus a reviewer's edits) and is owned by its
   * workload.
   */
  public static final String REASON_UP_TO_DATE = "UpToDate";

  /** Promotion is blocked: a WorkloadNetworkPolicy of that name exists for another workload. */
  public static final String REASON_NAME_CLASH = "NameClash";

  /** The promote label is neither monitor nor protect. */
  public static final String REASON_INVALID_PROMOTE_LABEL = "InvalidPromoteLabel";

  /** The API server refused a write as forbidden (admission, RBAC): retrying cannot help. */
  public static final String REASON_FORBIDDEN = "Forbidden";

  /** The API server refused a write as invalid. */
  public static final String REASON_INVALID = "Invalid";

  /**
   * The API server cannot store the proposal: with its evidence it is over the object size limit
   * (etcd's, 1.5 MiB by default: about 3,000 peers of one target).
   */
  public static final String REASON_TOO_LARGE = "TooLarge";

  /** {@code Converged} held False: the data plane lost events within the quiet period. */
  public static final String REASON_EVENTS_LOST = "EventsLost";

  /** The processor's {@code Converged} verdict, kept as this condition while loss holds it. */
  public static final String LEARNING_SETTLED = "LearningSettled";

  private ProposalConditions() {}
}
