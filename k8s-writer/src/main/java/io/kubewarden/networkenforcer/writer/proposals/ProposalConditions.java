package io.kubewarden.networkenforcer.writer.proposals;

/** The WorkloadNetworkPolicyProposal condition and its reasons ({@code status.conditions[]}). */
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

  private ProposalConditions() {}
}
