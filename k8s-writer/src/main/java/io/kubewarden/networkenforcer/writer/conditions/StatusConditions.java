package io.kubewarden.networkenforcer.writer.conditions;

/** Condition types and reasons the writer puts on a WorkloadNetworkPolicy (ours). */
public final class StatusConditions {
  /** Whether the native object (NetworkPolicy / AuthorizationPolicy) matches the policy. */
  public static final String RENDERED = "Rendered";

  /** The summary (Kubernetes API conventions): True when the policy is in force as written. */
  public static final String READY = "Ready";

  public static final String REASON_READY = "Ready";

  /** Acknowledge annotations whose id matches no active violation record. */
  public static final String UNMATCHED_ACKNOWLEDGEMENTS = "UnmatchedAcknowledgements";

  public static final String REASON_RENDERED = "Rendered";
  public static final String REASON_NOT_RENDERED_IN_MONITOR = "NothingToRender";
  public static final String REASON_NOT_OWNED = "NotOwned";
  public static final String REASON_ISTIO_UNAVAILABLE = "IstioUnavailable";
  public static final String REASON_SELECTOR_NOT_EXPRESSIBLE = "SelectorNotExpressible";
  public static final String REASON_RENDER_FAILED = "RenderFailed";
  public static final String REASON_UNKNOWN_VIOLATION_ID = "UnknownViolationId";

  private StatusConditions() {}
}
