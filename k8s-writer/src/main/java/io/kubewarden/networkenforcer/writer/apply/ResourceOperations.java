package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;

/**
 * The fabric8 handle of one object. AuthorizationPolicies and CiliumNetworkPolicies are generic
 * resources; their plural is given explicitly so no discovery call is needed.
 */
public final class ResourceOperations {
  private ResourceOperations() {}

  @SuppressWarnings("unchecked")
  public static <T extends HasMetadata> Resource<T> of(KubernetesClient client, T object) {
    if (object instanceof GenericKubernetesResource g
        && AuthorizationPolicyType.API_VERSION.equals(g.getApiVersion())
        && AuthorizationPolicyType.KIND.equals(g.getKind())) {
      return (Resource<T>)
          client
              .genericKubernetesResources(AuthorizationPolicyType.CONTEXT)
              .inNamespace(g.getMetadata().getNamespace())
              .resource(g);
    }
    if (object instanceof GenericKubernetesResource g
        && CiliumNetworkPolicyType.API_VERSION.equals(g.getApiVersion())
        && CiliumNetworkPolicyType.KIND.equals(g.getKind())) {
      return (Resource<T>)
          client
              .genericKubernetesResources(CiliumNetworkPolicyType.CONTEXT)
              .inNamespace(g.getMetadata().getNamespace())
              .resource(g);
    }
    return client.resource(object);
  }
}
