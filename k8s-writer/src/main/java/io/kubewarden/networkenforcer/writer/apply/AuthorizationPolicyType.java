package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * The Istio AuthorizationPolicy type as the client addresses it. Here, below rendering, because
 * writing a generic resource needs its plural (no discovery call) and the write path must not
 * depend on what renders the object.
 */
public final class AuthorizationPolicyType {
  public static final String GROUP = "security.istio.io";
  public static final String API_VERSION = GROUP + "/v1";
  public static final String KIND = "AuthorizationPolicy";
  public static final ResourceDefinitionContext CONTEXT =
      new ResourceDefinitionContext.Builder()
          .withGroup(GROUP)
          .withVersion("v1")
          .withKind(KIND)
          .withPlural("authorizationpolicies")
          .withNamespaced(true)
          .build();

  private AuthorizationPolicyType() {}
}
