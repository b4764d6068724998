package io.kubewarden.networkenforcer.common.policy;

import java.util.OptionalLong;

/** The labels and annotations users and the controller put on objects. */
public final class Labels {

  public static final String PREFIX = "networkenforcer.kubewarden.io/";

  /** On a WNPP, value {@code monitor} or {@code protect}: promote it. */
  public static final String PROMOTE = PREFIX + "promote";

  /** On a WNP, value = the proposal name it came from. */
  public static final String PROMOTED_FROM = PREFIX + "promoted-from";

  /** Annotation prefix on a WNP: {@code acknowledge-<id>} = reason. */
  public static final String ACKNOWLEDGE_PREFIX = PREFIX + "acknowledge-";

  /**
   * On a WNPP: the workloads ({@code ns/Kind/name}, comma-separated) whose kind, name and selector
   * were inferred from pod names and labels because neither the cluster nor the flow record named
   * them. Review those selectors before promoting.
   */
  public static final String INFERRED_WORKLOADS = PREFIX + "inferred-workloads";

  /**
   * On a WNPP rebuilt by {@code replay}: the window of flows it was learned from, {@code
   * <from>/<to>} (ISO-8601).
   */
  public static final String REPLAYED_FROM = PREFIX + "replayed-from";

  /**
   * A person's opt-in on a Job without a CronJob (in its pod template, so every pod carries it):
   * its pods are learned as a peer named by the value, selected by their stable labels.
   */
  public static final String JOB_PEER = PREFIX + "job-peer";

  /** On the rendered AuthorizationPolicy in monitor mode. */
  public static final String ISTIO_DRY_RUN = "istio.io/dry-run";

  /** The namespace label every namespace carries; learned peers select namespaces by it. */
  public static final String NAMESPACE_NAME = "kubernetes.io/metadata.name";

  /** The label selecting the objects this product manages (proposals, native objects). */
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  public static final String MANAGED_BY_VALUE = "network-enforcer";

  private Labels() {}

  /** The violation id of an acknowledge annotation key, empty when the key is not one. */
  public static OptionalLong acknowledgedId(String annotationKey) {
    if (annotationKey == null || !annotationKey.startsWith(ACKNOWLEDGE_PREFIX)) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(annotationKey.substring(ACKNOWLEDGE_PREFIX.length())));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
