package io.kubewarden.networkenforcer.processor.config;

/**
 * When the processor publishes the proposal of a target whose allow-list changed.
 *
 * <p>The service publishes every change at once ({@link #EVERY_CHANGE}): the writer and a person
 * watching see a new peer immediately. A run that only keeps the last proposal of each target
 * (offline learning) may hold changes until the next evidence flush ({@link #AT_FLUSH}): a busy
 * target that gains a thousand peers is then rendered once instead of a thousand times, each time
 * re-reading the evidence of every peer. The last proposal of every target is the same in both.
 */
public enum ProposalEmission {
  /** Render and publish the proposal on every allow-list change (default). */
  EVERY_CHANGE,
  /**
   * Render a changed allow-list at the next evidence flush, as of the flow time of its last change
   * (so it gives the same bytes the immediate rendering would have given). Changed allow-lists and
   * evidence are written to the stores at the flush too. Both live in memory until then: for runs
   * that end with a flush and are not restarted, such as {@code learn}.
   */
  AT_FLUSH
}
