package io.kubewarden.networkenforcer.cli.ranges;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.List;

/**
 * The API objects that report a cluster's ranges, in the order they are read: the service ranges
 * first, then the pod ranges as Kubernetes, Cilium and Calico allocate them. Each is read with
 * {@code list} only (the chart's {@code cluster-range-reader} ClusterRole grants exactly these).
 */
public enum RangeSource {
  /**
   * The service ranges (networking.k8s.io/v1, Kubernetes 1.33+; the default one is "kubernetes").
   */
  SERVICE_CIDR("ServiceCIDR", "networking.k8s.io", "v1", "servicecidrs", "spec.cidrs"),
  /** The pod ranges kube-controller-manager gave each node (its own IPAM, e.g. kubeadm, kind). */
  NODE("Node", "", "v1", "nodes", "spec.podCIDRs"),
  /** The pod ranges Cilium's operator gave each node (cluster-pool and kubernetes IPAM). */
  CILIUM_NODE("CiliumNode", "cilium.io", "v2", "ciliumnodes", "spec.ipam.podCIDRs"),
  /** Calico's pools, as the CRDs store them (manifest installs without the API server). */
  CALICO_IPPOOL_CRD("IPPool", "crd.projectcalico.org", "v1", "ippools", "spec.cidr"),
  /** Calico's pools through the Calico API server (operator installs). */
  CALICO_IPPOOL("IPPool", "projectcalico.org", "v3", "ippools", "spec.cidr");

  private final String kind;
  private final String group;
  private final String version;
  private final String plural;
  private final String field;

  RangeSource(String kind, String group, String version, String plural, String field) {
    this.kind = kind;
    this.group = group;
    this.version = version;
    this.plural = plural;
    this.field = field;
  }

  /** For logs: {@code CiliumNode cilium.io/v2 spec.ipam.podCIDRs}. */
  public String describe() {
    return kind + " " + apiVersion() + " " + field;
  }

  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  public String kind() {
    return kind;
  }

  /** The RBAC rule's group and resource, {@code cilium.io/ciliumnodes}. */
  public String resource() {
    return group + "/" + plural;
  }

  ResourceDefinitionContext context() {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion(version)
        .withPlural(plural)
        .withKind(kind)
        .withNamespaced(false)
        .build();
  }

  /** The ranges one object of this kind reports, as written. */
  public List<String> ranges(JsonNode object) {
    JsonNode spec = object.path("spec");
    List<String> out = new ArrayList<>();
    switch (this) {
      case SERVICE_CIDR -> texts(spec.path("cidrs"), out);
      case NODE -> {
        texts(spec.path("podCIDRs"), out);
        // Clusters older than dual-stack set only the single field.
        if (out.isEmpty() && spec.path("podCIDR").isTextual()) {
          out.add(spec.path("podCIDR").asText());
        }
      }
      case CILIUM_NODE -> texts(spec.path("ipam").path("podCIDRs"), out);
      case CALICO_IPPOOL_CRD, CALICO_IPPOOL -> {
        if (spec.path("cidr").isTextual()) {
          out.add(spec.path("cidr").asText());
        }
      }
    }
    return out;
  }

  private static void texts(JsonNode array, List<String> out) {
    for (JsonNode n : array) {
      if (n.isTextual() && !n.asText().isBlank()) {
        out.add(n.asText().trim());
      }
    }
  }
}
