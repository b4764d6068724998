package io.kubewarden.networkenforcer.common.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.json.Json;
import org.junit.jupiter.api.Test;

/** The report's summary lines of a CiliumNetworkPolicy payload, one per rule. */
class CiliumRulesTest {

  @Test
  void everyKindOfPeerIsNamed() throws Exception {
    CiliumPolicy policy =
        Json.yaml()
            .readValue(
                """
                endpointSelector: {matchLabels: {app: web}}
                ingress:
                - fromEntities: [cluster]
                  toPorts: [{ports: [{port: "8080", protocol: TCP}]}]
                - fromEndpoints: [{matchLabels: {app: client}}]
                  toPorts:
                  - ports: [{port: "9090", protocol: TCP}]
                  - ports: [{port: "8081", protocol: TCP}]
                    rules:
                      http: [{method: GET, path: "^/orders$"}, {path: "/v1/.*"}]
                egress:
                - toEndpoints: [{matchLabels: {app: db, k8s:io.kubernetes.pod.namespace: data}}]
                  toPorts: [{ports: [{port: "5432", protocol: TCP}, {port: "6000", endPort: 6009}, {port: "7000", endPort: 10}]}]
                - toEntities: [world]
                  toPorts: [{ports: [{port: "443", protocol: TCP}]}]
                - toFQDNs: [{matchName: api.example.com}]
                  toCIDRSet: [{cidr: 0.0.0.0/0, except: [10.0.0.0/8]}]
                  toPorts: [{ports: [{port: "443", protocol: TCP}]}]
                """,
                CiliumPolicy.class);

    assertThat(CiliumRules.describe("prod/web", policy))
        .containsExactly(
            "prod/web <- entity cluster on TCP 8080",
            "prod/web <- pods {app=client} in the policy's namespace on TCP 9090, TCP 8081, (HTTP GET"
                + " ^/orders$ | * /v1/.*)",
            "prod/web -> pods {app=db} in data on TCP 5432, ANY 6000-6009, ANY 7000",
            "prod/web -> entity world on TCP 443",
            "prod/web -> name api.example.com | addresses 0.0.0.0/0 except 10.0.0.0/8 on TCP 443");
  }
}
