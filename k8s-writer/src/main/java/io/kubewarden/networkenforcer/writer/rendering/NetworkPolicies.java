package io.kubewarden.networkenforcer.writer.rendering;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Labels;
import java.util.Map;
import java.util.Objects;

/** The Kubernetes NetworkPolicy a WNP of the kubernetes backend renders to in protect mode. */
public final class NetworkPolicies {
  private NetworkPolicies() {}

  public static NetworkPolicy desired(WorkloadNetworkPolicy wnp) {
    NetworkPolicy np = new NetworkPolicy();
    np.setMetadata(
        new ObjectMetaBuilder()
            .withName(wnp.getMetadata().getName())
            .withNamespace(wnp.getMetadata().getNamespace())
            .withLabels(Map.of(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE))
            .withOwnerReferences(Ownership.controllerReferenceTo(wnp))
            .build());
    np.setSpec(wnp.getSpec().getKubernetes());
    return np;
  }

  public static boolean matches(NetworkPolicy live, NetworkPolicy desired) {
    return Objects.equals(live.getSpec(), desired.getSpec())
        && Ownership.carriesOurMetadata(live, desired);
  }
}
