package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import java.net.HttpURLConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the finalizer {@value LearningResetFinalizer#NAME} from every proposal of the cluster,
 * for when no writer will run any more ({@code helm uninstall} keeps the CRDs and the proposals): a
 * proposal deleted then, or with its namespace, would otherwise wait for good. Needs only {@code
 * list} and {@code patch} on proposals. A learning reset still pending is dropped with the
 * processor that would have read it.
 */
public final class FinalizerRelease {
  private static final Logger LOG = LoggerFactory.getLogger(FinalizerRelease.class);
  private static final int ATTEMPTS = 5;

  private FinalizerRelease() {}

  /** The number of proposals the finalizer was removed from. */
  public static int releaseAll(KubernetesClient client) {
    int released = 0;
    for (WorkloadNetworkPolicyProposal p :
        client.resources(WorkloadNetworkPolicyProposal.class).inAnyNamespace().list().getItems()) {
      if (LearningResetFinalizer.held(p) && release(client, p)) {
        released++;
      }
    }
    LOG.info("finalizer {} removed from {} proposals", LearningResetFinalizer.NAME, released);
    return released;
  }

  /** Locked on the resourceVersion; a concurrent change is read again and tried again. */
  private static boolean release(KubernetesClient client, WorkloadNetworkPolicyProposal p) {
    Resource<WorkloadNetworkPolicyProposal> resource = client.resource(p);
    for (int attempt = 1; ; attempt++) {
      try {
        resource.patch(
            PatchContext.of(PatchType.JSON_MERGE),
            ServerSideApplyWriter.finalizerRemovalPatch(p, LearningResetFinalizer.NAME));
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
          return false;
        }
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt == ATTEMPTS) {
          throw e;
        }
      }
      p = resource.get();
      if (p == null || !LearningResetFinalizer.held(p)) {
        return false;
      }
    }
  }
}
