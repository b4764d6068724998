package io.kubewarden.networkenforcer.cli.diff;

/** A proposal and the policy of the same target, differing in three known ways. */
final class DiffFixtures {
  private DiffFixtures() {}

  /** Allows the client on TCP 18080 and UDP 18081, and the scraper on TCP 9090. */
  static final String PROPOSAL =
      """
      apiVersion: networkenforcer.kubewarden.io/v1alpha1
      kind: WorkloadNetworkPolicyProposal
      metadata: {name: deployment-http-server-ingress, namespace: demo}
      spec:
        backend: kubernetes
        targetRef: {kind: Deployment, name: http-server}
        direction: Ingress
        kubernetes:
          podSelector: {matchLabels: {app: http-server}}
          policyTypes: [Ingress]
          ingress:
          - from:
            - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: demo}}
              podSelector: {matchLabels: {app: http-client}}
            ports: [{protocol: TCP, port: 18080}, {protocol: UDP, port: 18081}]
          - from:
            - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}
              podSelector: {matchLabels: {app: scraper}}
            ports: [{protocol: TCP, port: 9090}]
      """;

  /** Allows the client on TCP 18080 and prometheus on TCP 9100. */
  static final String POLICY =
      """
      apiVersion: networkenforcer.kubewarden.io/v1alpha1
      kind: WorkloadNetworkPolicy
      metadata: {name: deployment-http-server-ingress, namespace: demo}
      spec:
        backend: kubernetes
        mode: monitor
        targetRef: {kind: Deployment, name: http-server}
        direction: Ingress
        kubernetes:
          podSelector: {matchLabels: {app: http-server}}
          policyTypes: [Ingress]
          ingress:
          - from:
            - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: demo}}
              podSelector: {matchLabels: {app: http-client}}
            - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
              podSelector: {matchLabels: {app: prometheus}}
            ports: [{protocol: TCP, port: 18080}]
          - from:
            - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
              podSelector: {matchLabels: {app: prometheus}}
            ports: [{protocol: TCP, port: 9100}]
      """;
}
