package io.kubewarden.networkenforcer.writer.proposals;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The informer's cache may still hold a deleted proposal with the finalizer this writer has just
 * removed; a reconcile of that stale copy must not decide (and reset) a second time. The stale copy
 * cannot be brought about on purpose with a real API server, so the writes are recorded here.
 */
class LearningResetFinalizerTest {
  private final List<String> decided = new ArrayList<>();
  private final List<String> removed = new ArrayList<>();
  private final LearningResetFinalizer finalizer =
      new LearningResetFinalizer(removalsOnly(), (key, p) -> decided.add(key.name()));

  private static WorkloadNetworkPolicyProposal deleted(String name, String uid) {
    WorkloadNetworkPolicyProposal p = new WorkloadNetworkPolicyProposal();
    p.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace("shop")
            .withName(name)
            .withUid(uid)
            .withDeletionTimestamp("2026-12-07T19:00:00Z")
            .withFinalizers(LearningResetFinalizer.NAME)
            .build());
    return p;
  }

  @Test
  void aStaleCopyOfAFinishedProposalIsNotDecidedAgain() {
    WorkloadNetworkPolicyProposal gone = deleted("deployment-gone-ingress", "uid-1");

    finalizer.finish(new ObjectKey("shop", "deployment-gone-ingress"), gone);
    finalizer.finish(new ObjectKey("shop", "deployment-gone-ingress"), gone);

    assertThat(decided).containsExactly("deployment-gone-ingress");
    assertThat(removed).containsExactly("deployment-gone-ingress");
  }

  @Test
  void aProposalCreatedAgainUnderTheSameNameIsDecidedWhenItIsDeleted() {
    finalizer.finish(
        new ObjectKey("shop", "deployment-web-ingress"),
        deleted("deployment-web-ingress", "uid-1"));
    finalizer.finish(
        new ObjectKey("shop", "deployment-web-ingress"),
        deleted("deployment-web-ingress", "uid-2"));

    assertThat(decided).containsExactly("deployment-web-ingress", "deployment-web-ingress");
  }

  /** Records finalizer removals; any other write fails the test: the finalizer makes none. */
  private ClusterWriter removalsOnly() {
    return (ClusterWriter)
        Proxy.newProxyInstance(
            ClusterWriter.class.getClassLoader(),
            new Class<?>[] {ClusterWriter.class},
            (proxy, method, args) -> {
              if (!method.getName().equals("removeFinalizer")) {
                throw new AssertionError("no " + method.getName() + " expected");
              }
              removed.add(((HasMetadata) args[0]).getMetadata().getName());
              return null;
            });
  }
}
