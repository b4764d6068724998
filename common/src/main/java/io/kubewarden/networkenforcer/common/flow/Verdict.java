package io.kubewarden.networkenforcer.common.flow;

/** What the data plane did with a flow. */
public enum Verdict {
  /** Allowed and forwarded. Drives learning, and monitor-mode evaluation. */
  FORWARDED,
  /** Dropped by an enforced policy (protect). A violation with action protect. */
  DENIED,
  /**
   * A dry-run/audit policy would have denied it; nothing was dropped. A violation with action
   * monitor.
   */
  DRY_RUN_DENIED
}
