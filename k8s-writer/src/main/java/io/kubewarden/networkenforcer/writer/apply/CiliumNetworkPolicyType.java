package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * The Cilium CiliumNetworkPolicy type as the client addresses it (a generic resource with its
 * plural given, no discovery call); here for the same reason as {@link AuthorizationPolicyType}.
 */
public final class CiliumNetworkPolicyType {
  public static final String GROUP = "cilium.io";
  public static final String API_VERSION = GROUP + "/v2";
  public static final String KIND = "CiliumNetworkPolicy";
  public static final ResourceDefinitionContext CONTEXT =
      new ResourceDefinitionContext.Builder()
          .withGroup(GROUP)
          .withVersion("v2")
          .withKind(KIND)
          .withPlural("ciliumnetworkpolicies")
          .withNamespaced(true)
          .build();

  private CiliumNetworkPolicyType() {}
}
