package io.kubewarden.networkenforcer.common.flow;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One end of a flow, resolved at ingest time so that a replayed topic gives the same result even
 * when the workload is gone. {@code workloadKind}/{@code workloadName} are null when the pod is not
 * owned by a workload (allowed only for an Istio source that has an identity).
 *
 * @param workloadSelector the workload's {@code spec.selector}
 * @param identity the SPIFFE identity, {@code spiffe://<trust domain>/ns/<ns>/sa/<sa>} (Istio)
 * @param namedPorts the pod's named container ports
 * @param inferred the workload and its selector were inferred from the pod name and labels (no
 *     cluster object and no provider field named them); omitted from JSON when false
 * @param namedPortsKnown true when {@code namedPorts} is the pod's complete list (read from the pod
 *     spec), so an empty list means "none"; null when they are unknown (the pod was gone, or the
 *     cluster view had no containers). Old records without the field count as known when their list
 *     is not empty.
 * @param external set when this end is outside the cluster: no workload, {@code ip} is its address
 *     (null when the data plane gives none)
 * @param labelsOnly this in-cluster end is known only by its namespace and pod labels: no workload
 *     could be inferred, and {@code workloadSelector} holds its selectable labels (the peer of a
 *     known workload; it gets no proposal of its own); omitted from JSON when false
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record FlowEndpoint(
    String namespace,
    WorkloadKind workloadKind,
    String workloadName,
    LabelSelector workloadSelector,
    Map<String, String> podLabels,
    Map<String, String> namespaceLabels,
    String podName,
    String ip,
    String serviceAccount,
    String identity,
    List<NamedPort> namedPorts,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean inferred,
    Boolean namedPortsKnown,
    ExternalEndpoint external,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean labelsOnly) {

  /** An end without the label-only mark (the fields every version had). */
  public FlowEndpoint(
      String namespace,
      WorkloadKind workloadKind,
      String workloadName,
      LabelSelector workloadSelector,
      Map<String, String> podLabels,
      Map<String, String> namespaceLabels,
      String podName,
      String ip,
      String serviceAccount,
      String identity,
      List<NamedPort> namedPorts,
      boolean inferred,
      Boolean namedPortsKnown,
      ExternalEndpoint external) {
    this(
        namespace,
        workloadKind,
        workloadName,
        workloadSelector,
        podLabels,
        namespaceLabels,
        podName,
        ip,
        serviceAccount,
        identity,
        namedPorts,
        inferred,
        namedPortsKnown,
        external,
        false);
  }

  public FlowEndpoint {
    podLabels = podLabels == null ? Map.of() : Map.copyOf(podLabels);
    namespaceLabels = namespaceLabels == null ? Map.of() : Map.copyOf(namespaceLabels);
    namedPorts = namedPorts == null ? List.of() : List.copyOf(namedPorts);
    // null rather than false: absent from the encoded record.
    namedPortsKnown = Boolean.TRUE.equals(namedPortsKnown) ? Boolean.TRUE : null;
  }

  /**
   * An end outside the cluster: its address (may be null) and what the data plane says about it.
   */
  public static FlowEndpoint outsideCluster(String ip, ExternalEndpoint external) {
    return builder()
        .ip(ip)
        .external(external == null ? ExternalEndpoint.of(null) : external)
        .build();
  }

  /** Whether this end is outside the cluster. */
  @JsonIgnore
  public boolean isExternal() {
    return external != null;
  }

  /**
   * Whether {@link #namedPorts()} is complete: an empty list then means the pod has no named ports;
   * otherwise the ports are unknown.
   */
  @JsonIgnore
  public boolean namedPortsAreKnown() {
    return Boolean.TRUE.equals(namedPortsKnown) || !namedPorts.isEmpty();
  }

  /**
   * The peer key of a Job without a CronJob that opted in as a peer ({@code <ns>/Job/<name>}: a
   * name and a selector, no workload kind; see the ingest's {@code StandaloneJobPeer}); empty
   * otherwise.
   */
  @JsonIgnore
  public Optional<String> jobPeerKey() {
    return workloadKind == null
            && workloadName != null
            && workloadSelector != null
            && namespace != null
            && external == null
        ? Optional.of(namespace + "/" + JOB_PEER_KIND + "/" + workloadName)
        : Optional.empty();
  }

  /**
   * The peer key of an end known only by its labels ({@code <ns>/Labels/<k=v,...>}, labels sorted:
   * the selector's matchLabels); empty otherwise.
   */
  @JsonIgnore
  public Optional<String> labelPeerKey() {
    if (!labelsOnly
        || namespace == null
        || workloadSelector == null
        || workloadSelector.getMatchLabels() == null
        || workloadSelector.getMatchLabels().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(labelPeerKey(namespace, workloadSelector.getMatchLabels()));
  }

  /** The kind a label-only peer's key names; no owner kind at all. */
  public static final String LABEL_PEER_KIND = "Labels";

  /** The key of a label-only peer with these labels in {@code namespace}. */
  public static String labelPeerKey(String namespace, Map<String, String> matchLabels) {
    StringBuilder key =
        new StringBuilder(namespace).append('/').append(LABEL_PEER_KIND).append('/');
    String sep = "";
    for (Map.Entry<String, String> l : new TreeMap<>(matchLabels).entrySet()) {
      key.append(sep).append(l.getKey()).append('=').append(l.getValue());
      sep = ",";
    }
    return key.toString();
  }

  /** Whether a peer key names a label-only peer ({@code <ns>/Labels/...}). */
  public static boolean isLabelPeerKey(String peerKey) {
    int first = peerKey.indexOf('/');
    return first > 0 && peerKey.startsWith(LABEL_PEER_KIND + "/", first + 1);
  }

  /**
   * The kind of what owns the pod: its workload's kind, {@code Job} for an opted-in Job peer, else
   * null.
   */
  @JsonIgnore
  public String ownerKind() {
    return workloadKind != null
        ? workloadKind.name()
        : jobPeerKey().isPresent() ? JOB_PEER_KIND : null;
  }

  /**
   * The kind a Job peer's key names; not a {@link WorkloadKind} (a Job gets no proposal of its
   * own).
   */
  public static final String JOB_PEER_KIND = "Job";

  /** The workload this endpoint belongs to, if any. */
  @JsonIgnore
  public Optional<WorkloadRef> workload() {
    if (namespace == null || workloadKind == null || workloadName == null) {
      return Optional.empty();
    }
    return Optional.of(new WorkloadRef(namespace, workloadKind, workloadName));
  }

  /**
   * The Istio principal, {@code <trust domain>/ns/<ns>/sa/<sa>}: the identity without its {@code
   * spiffe://} scheme.
   */
  @JsonIgnore
  public Optional<String> principal() {
    if (identity == null || identity.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        identity.startsWith("spiffe://") ? identity.substring("spiffe://".length()) : identity);
  }

  /** The namespace labels, with {@code kubernetes.io/metadata.name} always present. */
  @JsonIgnore
  public Map<String, String> effectiveNamespaceLabels() {
    if (namespace == null || namespaceLabels.containsKey("kubernetes.io/metadata.name")) {
      return namespaceLabels;
    }
    var labels = new HashMap<>(namespaceLabels);
    labels.put("kubernetes.io/metadata.name", namespace);
    return Map.copyOf(labels);
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder()
        .namespace(namespace)
        .workload(workloadKind, workloadName)
        .workloadSelector(workloadSelector)
        .podLabels(podLabels)
        .namespaceLabels(namespaceLabels)
        .podName(podName)
        .ip(ip)
        .serviceAccount(serviceAccount)
        .identity(identity)
        .namedPorts(namedPorts)
        .namedPortsKnown(Boolean.TRUE.equals(namedPortsKnown))
        .external(external)
        .inferred(inferred)
        .labelsOnly(labelsOnly);
  }

  /** Builder: endpoints have many optional fields. */
  public static final class Builder {
    private String namespace;
    private WorkloadKind workloadKind;
    private String workloadName;
    private LabelSelector workloadSelector;
    private Map<String, String> podLabels = Map.of();
    private Map<String, String> namespaceLabels = Map.of();
    private String podName;
    private String ip;
    private String serviceAccount;
    private String identity;
    private List<NamedPort> namedPorts = List.of();
    private boolean namedPortsKnown;
    private ExternalEndpoint external;
    private boolean inferred;
    private boolean labelsOnly;

    public Builder namespace(String v) {
      namespace = v;
      return this;
    }

    public Builder workload(WorkloadKind kind, String name) {
      workloadKind = kind;
      workloadName = name;
      return this;
    }

    public Builder workloadSelector(LabelSelector v) {
      workloadSelector = v;
      return this;
    }

    public Builder podLabels(Map<String, String> v) {
      podLabels = v;
      return this;
    }

    public Builder namespaceLabels(Map<String, String> v) {
      namespaceLabels = v;
      return this;
    }

    public Builder podName(String v) {
      podName = v;
      return this;
    }

    public Builder ip(String v) {
      ip = v;
      return this;
    }

    public Builder serviceAccount(String v) {
      serviceAccount = v;
      return this;
    }

    public Builder identity(String v) {
      identity = v;
      return this;
    }

    public Builder namedPorts(List<NamedPort> v) {
      namedPorts = v;
      return this;
    }

    /** The named ports were read from the pod spec: an empty list means "none". */
    public Builder namedPortsKnown(boolean v) {
      namedPortsKnown = v;
      return this;
    }

    public Builder external(ExternalEndpoint v) {
      external = v;
      return this;
    }

    public Builder inferred(boolean v) {
      inferred = v;
      return this;
    }

    /** Known only by namespace and labels (see {@link FlowEndpoint#labelsOnly()}). */
    public Builder labelsOnly(boolean v) {
      labelsOnly = v;
      return this;
    }

    public FlowEndpoint build() {
      return new FlowEndpoint(
          namespace,
          workloadKind,
          workloadName,
          workloadSelector,
          podLabels,
          namespaceLabels,
          podName,
          ip,
          serviceAccount,
          identity,
          namedPorts,
          inferred,
          namedPortsKnown,
          external,
          labelsOnly);
    }
  }
}
