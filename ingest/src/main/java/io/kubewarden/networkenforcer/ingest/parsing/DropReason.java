package io.kubewarden.networkenforcer.ingest.parsing;

/**
 * Why an input record did not become a {@code FlowRecord}. Every reason is counted in the {@code
 * network.enforcer.ingest.flows.dropped} metric, tagged with {@link #tag()}.
 */
public enum DropReason {
  /** A peer is the node itself (Hubble host identity, Calico HostEndpoint). */
  HOST("host"),
  /** A peer is another node of the cluster (Cilium's remote-node identity). */
  REMOTE_NODE("remote-node"),
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
  /**
   * No cluster object names the pod, and its name and labels do not tell its workload for sure (a
   * bare pod with a generated-looking name, a lone suffix without DaemonSet labels, no labels to
   * select it by): dropped rather than learned under a guessed workload.
   */
  AMBIGUOUS_WORKLOAD("ambiguous-workload"),
  /** A policy deny whose pod could not be resolved to a workload: a violation nobody can own. */
  UNRESOLVED_DENY("unresolved-deny"),
  /** A reply packet (is_reply, trace reason, SYN+ACK, or a reply-shaped port pair). */
  REPLY("reply"),
  /**
   * A forwarded packet of an established connection whose direction the record does not tell (no
   * is_reply, no SYN, no port pair that settles it): learning it could learn a reply.
   */
  UNKNOWN_DIRECTION("unknown-direction"),
  /**
   * The same connection reported again: Goldmane's source-side copy of an allowed flow, or Hubble's
   * other observation points and later packets of a connection already counted.
   */
  DUPLICATE_REPORT("duplicate-report"),
  /**
   * A flow a resumed stream sent again that the flows topic already holds (a restarted ingest asks
   * the provider from a little before the last flow it published, then drops what it finds there).
   */
  ALREADY_PUBLISHED("already-published"),
  /** A verdict that is neither allowed nor a policy deny (errors, traced, translated, unknown). */
  NOT_A_POLICY_VERDICT("not-a-policy-verdict"),
  /** A packet dropped for a reason other than policy (conntrack, routing, invalid source, ...). */
  NON_POLICY_DROP("non-policy-drop"),
  /**
   * An L7 proxy record (HTTP, DNS, Kafka) other than a request: a reply or sample adds no
   * connection. A forwarded request is learned as its connection; a refused one is a deny.
   */
  L7_RECORD("l7-record"),
  /**
   * A socket-level trace (Cilium's socket load balancer translating a service address): not a
   * packet flow.
   */
  SOCKET_TRACE("socket-trace"),
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
