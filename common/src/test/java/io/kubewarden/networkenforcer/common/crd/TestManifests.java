package io.kubewarden.networkenforcer.common.crd;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Our custom resources written as YAML, sent untyped so a test controls exactly which fields reach
 * the API server (the typed classes would fill in defaults such as {@code mode}).
 */
final class TestManifests {

  /** The two kinds with the REST coordinates the untyped client needs. */
  enum Kind {
    WorkloadNetworkPolicy("workloadnetworkpolicies"),
    WorkloadNetworkPolicyProposal("workloadnetworkpolicyproposals");

    final String plural;

    Kind(String plural) {
      this.plural = plural;
    }

    ResourceDefinitionContext context() {
      return new ResourceDefinitionContext.Builder()
          .withGroup(CrdConstants.GROUP)
          .withVersion(CrdConstants.VERSION)
          .withKind(name())
          .withPlural(plural)
          .withNamespaced(true)
          .build();
    }

    String crdName() {
      return plural + "." + CrdConstants.GROUP;
    }
  }

  static final String KUBERNETES_SPEC =
      """
      backend: kubernetes
      direction: Ingress
      targetRef: {kind: Deployment, name: web}
      kubernetes:
        podSelector: {matchLabels: {app: web}}
        policyTypes: [Ingress]
        ingress:
        - from:
          - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}}
            podSelector: {matchLabels: {app: client}}
          ports:
          - {protocol: TCP, port: 8080}
      """;

  static final String ISTIO_SPEC =
      """
      backend: istio
      direction: Ingress
      targetRef: {kind: Deployment, name: web}
      istio:
        selector: {matchLabels: {app: web}}
        rules:
        - from: [{source: {principals: [cluster.local/ns/shop/sa/client]}}]
          to: [{operation: {ports: ["8080"]}}]
      """;

  static final String CILIUM_SPEC =
      """
      backend: cilium
      direction: Egress
      targetRef: {kind: Deployment, name: web}
      cilium:
        endpointSelector: {matchLabels: {app: web}}
        egress:
        - toFQDNs: [{matchName: api.example.com}]
          toPorts:
          - ports: [{port: "443", protocol: TCP}]
        - toEndpoints:
          - matchLabels: {k8s:io.kubernetes.pod.namespace: kube-system, k8s:k8s-app: kube-dns}
          toPorts:
          - ports: [{port: "53", protocol: UDP}, {port: "53", protocol: TCP}]
            rules:
              dns: [{matchPattern: "*"}]
      """;

  private static final AtomicInteger NAMES = new AtomicInteger();

  private TestManifests() {}

  /** A name no other test of this JVM uses. */
  static String uniqueName(String prefix) {
    return prefix + "-" + NAMES.incrementAndGet();
  }

  /** An object of that kind with that spec (YAML, unindented) and optional extra metadata YAML. */
  static GenericKubernetesResource object(
      KubernetesClient client, Kind kind, String name, String metadataYaml, String specYaml) {
    String yaml =
        "apiVersion: "
            + CrdConstants.API_VERSION
            + "\nkind: "
            + kind.name()
            + "\nmetadata:\n  name: "
            + name
            + "\n"
            + indent(metadataYaml)
            + "spec:\n"
            + indent(specYaml);
    return client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
  }

  static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      resources(KubernetesClient client, Kind kind, String namespace) {
    return client.genericKubernetesResources(kind.context()).inNamespace(namespace);
  }

  private static String indent(String yaml) {
    if (yaml == null || yaml.isBlank()) {
      return "";
    }
    return yaml.stripTrailing().lines().map(line -> "  " + line).reduce("", (a, b) -> a + b + "\n");
  }
}
