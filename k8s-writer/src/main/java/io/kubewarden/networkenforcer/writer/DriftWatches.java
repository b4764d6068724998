package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.writer.events.EnqueueKeys;
import io.kubewarden.networkenforcer.writer.events.EventFilters;
import io.kubewarden.networkenforcer.writer.events.OptionalWatch;
import io.kubewarden.networkenforcer.writer.events.OwnerKeys;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.rendering.AuthorizationPolicies;
import io.kubewarden.networkenforcer.writer.rendering.CiliumNetworkPolicies;
import io.kubewarden.networkenforcer.writer.rendering.IstioAvailability;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drift: a rendered object changed or deleted behind our back queues its policy, which renders it
 * again. One watch per native kind the backend renders; adds are not events (the policy's own
 * reconcile created the object).
 */
final class DriftWatches {
  private static final Logger LOG = LoggerFactory.getLogger(DriftWatches.class);

  private DriftWatches() {}

  /**
   * Starts the watches of the rendered kinds this API server serves.
   *
   * @return the informers started, to stop with the session
   */
  static List<SharedIndexInformer<?>> start(
      KubernetesClient client, IstioAvailability istio, Consumer<ObjectKey> policies) {
    EnqueueKeys<HasMetadata> drift =
        EnqueueKeys.<HasMetadata>to(policies)
            .keyedBy(OwnerKeys::policyOf)
            .addsWhen(EventFilters.never());
    List<SharedIndexInformer<?>> started = new ArrayList<>();
    started.add(
        watch(
            "NetworkPolicy",
            client
                .network()
                .v1()
                .networkPolicies()
                .inAnyNamespace()
                .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                .runnableInformer(0),
            drift));
    if (servesCiliumNetworkPolicies(client)) {
      started.add(
          watch(
              CiliumNetworkPolicies.KIND,
              client
                  .genericKubernetesResources(CiliumNetworkPolicies.CONTEXT)
                  .inAnyNamespace()
                  .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                  .runnableInformer(0),
              drift));
    }
    if (istio.available()) {
      started.add(
          watch(
              "AuthorizationPolicy",
              client
                  .genericKubernetesResources(AuthorizationPolicies.CONTEXT)
                  .inAnyNamespace()
                  .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                  .runnableInformer(0),
              drift));
    }
    return started;
  }

  private static boolean servesCiliumNetworkPolicies(KubernetesClient client) {
    try {
      return client.supports(CiliumNetworkPolicies.API_VERSION, CiliumNetworkPolicies.KIND);
    } catch (RuntimeException e) {
      LOG.warn("cannot ask whether the API server serves CiliumNetworkPolicy: {}", e.toString());
      return false;
    }
  }

  /**
   * Not needed to start: the chart grants only the native kind of its backend, so the other one may
   * be forbidden; then there is no watch, only the resync.
   */
  private static <T extends HasMetadata> SharedIndexInformer<?> watch(
      String kind, SharedIndexInformer<T> informer, EnqueueKeys<HasMetadata> drift) {
    informer.addEventHandler(drift);
    SharedIndexInformer<?> watched = OptionalWatch.of("rendered " + kind + " objects", informer);
    informer.start();
    return watched;
  }
}
