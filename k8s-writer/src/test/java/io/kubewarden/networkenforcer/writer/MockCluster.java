package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.writer.rendering.AuthorizationPolicies;
import java.util.HashMap;
import java.util.Queue;

/**
 * The fabric8 mock API server in CRUD mode, with our two kinds registered (status subresource) and,
 * unless told otherwise, Istio's AuthorizationPolicy.
 */
public final class MockCluster implements AutoCloseable {
  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private MockCluster(boolean withIstio) {
    var responses = new HashMap<ServerRequest, Queue<ServerResponse>>();
    // The mixed dispatcher: CRUD on every path, plus any explicit expectations a test adds.
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(responses),
            true);
    server.init();
    server.expectCustomResource(
        CustomResourceDefinitionContext.fromCustomResourceType(WorkloadNetworkPolicy.class));
    server.expectCustomResource(
        CustomResourceDefinitionContext.fromCustomResourceType(
            WorkloadNetworkPolicyProposal.class));
    if (withIstio) {
      server.expectCustomResource(
          new CustomResourceDefinitionContext.Builder()
              .withGroup(AuthorizationPolicies.GROUP)
              .withVersion("v1")
              .withKind(AuthorizationPolicies.KIND)
              .withPlural("authorizationpolicies")
              .withScope("Namespaced")
              .build());
    } else {
      server.setUnsupported(AuthorizationPolicies.GROUP);
    }
    client = server.createClient();
  }

  public static MockCluster start() {
    return new MockCluster(true);
  }

  public static MockCluster withoutIstio() {
    return new MockCluster(false);
  }

  public KubernetesClient client() {
    return client;
  }

  /** A second, independent client of the same server (another writer replica). */
  public KubernetesClient newClient() {
    return server.createClient();
  }

  public KubernetesMockServer server() {
    return server;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
