package io.kubewarden.networkenforcer.processor.store;

/** Names of the processor's state stores (their changelog topics derive from them). */
public final class StoreNames {
  /** Learned allow-lists, keyed by target. */
  public static final String LEARNED = "learned-allow-lists";

  /** Evidence per target, peer and port, keyed by {@code EvidenceKey}. */
  public static final String EVIDENCE = "learned-evidence";

  /**
   * Observations waiting to be combined before the repartition (see {@code ObservationCombiner}),
   * keyed by target and flow without its times and count.
   */
  public static final String COMBINER = "observation-combiner";

  /** Known policies, keyed by target. */
  public static final String POLICIES = "known-policies";

  /**
   * Targets reset lately, with the reset's time in epoch milliseconds: their observations last seen
   * before it are late (see {@code TargetProcessor}).
   */
  public static final String RESET_FENCES = "reset-fences";

  /** Every Kubernetes NetworkPolicy of the cluster, keyed {@code ns/name} (global store). */
  public static final String NATIVE_POLICIES = "native-policies";

  private StoreNames() {}
}
