package io.kubewarden.networkenforcer.cli;

/** Policy documents the command tests read, written once. */
public final class PolicyFixtures {
  private PolicyFixtures() {}

  /**
   * The sample's http-server ingress as a proposal: the client from {@code demo} on TCP 18080, so
   * the sample's UDP 18081 flow is the one it denies.
   */
  public static final String SERVER_INGRESS =
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
            ports:
            - {protocol: TCP, port: 18080}
      """;

  /** The policy an ingress proposal becomes, promoted in {@code mode}: same name and spec. */
  public static String promoted(String ingressProposal, String mode) {
    return ingressProposal
        .replace("kind: WorkloadNetworkPolicyProposal", "kind: WorkloadNetworkPolicy")
        .replace("direction: Ingress", "direction: Ingress\n  mode: " + mode);
  }
}
