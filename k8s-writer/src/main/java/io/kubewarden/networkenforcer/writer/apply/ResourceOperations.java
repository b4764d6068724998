package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kubewarden.networkenforcer.writer.rendering.AuthorizationPolicies;

/**
 * The fabric8 handle of one object. AuthorizationPolicies are generic resources; their plural is
 * given explicitly so no discovery call is needed.
 */
public final class ResourceOperations {
  private ResourceOperations() {}

  @SuppressWarnings("unchecked")
  public static <T extends HasMetadata> Resource<T> of(KubernetesClient client, T object) {
    if (object instanceof GenericKubernetesResource g && AuthorizationPolicies.API_VERSION.equals(g.getApiVersion())
        && AuthorizationPolicies.KIND.equals(g.getKind())) {
      return (Resource<T>) client.genericKubernetesResources(AuthorizationPolicies.CONTEXT)
          .inNamespace(g.getMetadata().getNamespace()).resource(g);
    }
    return client.resource(object);
  }
}
