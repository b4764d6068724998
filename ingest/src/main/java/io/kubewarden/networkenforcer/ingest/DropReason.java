package io.kubewarden.networkenforcer.ingest;

/**
 * Why an input record did not become a {@code FlowRecord}. Every reason is counted in the
 * {@code network.enforcer.ingest.flows.dropped} metric, tagged with {@link #tag()}.
 */
public enum DropReason {
  /** A peer is the node itself (Hubble host identity, Calico HostEndpoint). */
  HOST("host"),
  /** A pod running with hostNetwork: its traffic cannot be told apart from the node's. */
  HOST_NETWORK("host-network"),
  /**
   * A pod not owned by a Deployment, StatefulSet, DaemonSet or CronJob (a Job without a CronJob, a
   * bare pod, a bare ReplicaSet).
   */
  NOT_A_WORKLOAD("not-a-workload"),
  /**
   * Both ends outside the cluster (an end outside the cluster is carried as an external endpoint
   * and learned as an ipBlock; only a flow with no workload at either end is dropped).
   */
  EXTERNAL("external"),
  /** A Cilium reserved identity other than host and world (kube-apiserver, health, ...). */
  RESERVED_IDENTITY("reserved-identity"),
  /** No pod with that name or IP is known. */
  UNKNOWN_POD("unknown-pod"),
  /** The pod's owner chain leads to a workload we do not (yet) know. */
  UNKNOWN_WORKLOAD("unknown-workload"),
  /** A reply packet of a connection already seen in its request direction. */
  REPLY("reply"),
  /**
   * The same connection reported again: Goldmane's source-side copy of an allowed flow, or Hubble's
   * other observation points and later packets of a connection already counted.
   */
  DUPLICATE_REPORT("duplicate-report"),
  /** A verdict that is neither forwarded nor a policy deny (other drops, errors, translations, L7). */
  NOT_A_POLICY_VERDICT("not-a-policy-verdict"),
  /** ICMP and other protocols we do not learn. */
  UNSUPPORTED_PROTOCOL("unsupported-protocol"),
  /** A required field is missing or empty. */
  INCOMPLETE("incomplete"),
  /** A well-formed record that carries no flow (node status, lost events, unrelated log lines). */
  NOT_A_FLOW("not-a-flow"),
  /** A ztunnel access log that is not the inbound, mutual-TLS, successful "connection complete". */
  IGNORED_LOG("ignored-log");

  private final String tag;

  DropReason(String tag) {
    this.tag = tag;
  }

  /** The metric tag value. */
  public String tag() {
    return tag;
  }
}
