package io.kubewarden.networkenforcer.writer.view;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.common.report.ReportModel.Workload;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Matches a rule's peer selector to a cached workload of its namespace. */
final class PeerResolver {
  private final List<HasMetadata> workloads;

  PeerResolver(List<HasMetadata> workloads) {
    this.workloads =
        workloads.stream()
            .sorted(
                Comparator.comparing(PeerResolver::kindOf)
                    .thenComparing(w -> w.getMetadata().getName()))
            .toList();
  }

  /** The kind of a cached workload, from its class (list items need not carry {@code kind}). */
  private static String kindOf(HasMetadata w) {
    return w.getClass().getSimpleName();
  }

  Workload resolve(String policyNamespace, NetworkPolicyPeer peer) {
    if (peer.getIpBlock() != null) {
      return ReportModel.peerWorkload(peer.getIpBlock().getCidr());
    }
    String ns = policyNamespace;
    if (peer.getNamespaceSelector() != null) {
      Map<String, String> nsLabels = peer.getNamespaceSelector().getMatchLabels();
      ns = nsLabels == null ? null : nsLabels.get(Labels.NAMESPACE_NAME);
      if (ns == null) {
        String sel = SelectorText.of(peer.getNamespaceSelector());
        return new Workload(
            "namespaces " + sel, "(namespaces " + sel + ")", "Namespaces", sel, false);
      }
    }
    if (peer.getPodSelector() == null
        || peer.getPodSelector().getMatchLabels() == null
        || peer.getPodSelector().getMatchLabels().isEmpty()) {
      return new Workload(ns + "/Namespace/all pods", ns, "Namespace", "all pods", false);
    }
    Map<String, String> wanted = peer.getPodSelector().getMatchLabels();
    String namespace = ns;
    return workloads.stream()
        .filter(w -> namespace.equals(w.getMetadata().getNamespace()))
        .filter(w -> wanted.equals(selectorOf(w)))
        .findFirst()
        .map(
            w ->
                new Workload(
                    namespace + "/" + kindOf(w) + "/" + w.getMetadata().getName(),
                    namespace,
                    kindOf(w),
                    w.getMetadata().getName(),
                    false))
        .orElseGet(
            () -> {
              String sel = SelectorText.of(peer.getPodSelector());
              return new Workload(namespace + "/Pods/" + sel, namespace, "Pods", sel, false);
            });
  }

  /** The labels a workload selects its pods by (a CronJob: its pod template's labels). */
  private static Map<String, String> selectorOf(HasMetadata w) {
    LabelSelector s = null;
    if (w instanceof Deployment d && d.getSpec() != null) {
      s = d.getSpec().getSelector();
    } else if (w instanceof StatefulSet st && st.getSpec() != null) {
      s = st.getSpec().getSelector();
    } else if (w instanceof DaemonSet ds && ds.getSpec() != null) {
      s = ds.getSpec().getSelector();
    } else if (w instanceof CronJob cj
        && cj.getSpec() != null
        && cj.getSpec().getJobTemplate() != null
        && cj.getSpec().getJobTemplate().getSpec() != null
        && cj.getSpec().getJobTemplate().getSpec().getTemplate() != null
        && cj.getSpec().getJobTemplate().getSpec().getTemplate().getMetadata() != null) {
      return Objects.requireNonNullElse(
          cj.getSpec().getJobTemplate().getSpec().getTemplate().getMetadata().getLabels(),
          Map.of());
    }
    return s == null || s.getMatchLabels() == null ? Map.of() : s.getMatchLabels();
  }
}
