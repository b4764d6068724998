package io.kubewarden.networkenforcer.common.workload;

import java.util.Locale;
import java.util.Optional;

/**
 * The controllers whose pods get a learned policy. A CronJob counts: its Jobs' pods carry its job
 * template's labels, stable from run to run. Anything else (a Job without a CronJob, a bare Pod) is
 * not a workload; a Job that opted in as a peer is one end of a rule only ({@link
 * io.kubewarden.networkenforcer.common.flow.FlowEndpoint#jobPeerKey()}).
 */
public enum WorkloadKind {
  Deployment,
  StatefulSet,
  DaemonSet,
  CronJob;

  /** The API group/version of the kind, for owner references. */
  public String apiVersion() {
    return this == CronJob ? "batch/v1" : "apps/v1";
  }

  /** Parses the Kubernetes kind name; empty when the kind is not a workload kind. */
  public static Optional<WorkloadKind> fromKind(String kind) {
    if (kind == null) {
      return Optional.empty();
    }
    for (WorkloadKind k : values()) {
      if (k.name().equals(kind)) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  /** The kind in lower case, as used in proposal and policy names. */
  public String lowerCase() {
    return name().toLowerCase(Locale.ROOT);
  }
}
