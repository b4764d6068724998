package io.kubewarden.networkenforcer.writer.status;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.evaluation.CiliumPolicyEvaluator;
import io.kubewarden.networkenforcer.common.evaluation.Decision;
import io.kubewarden.networkenforcer.common.evaluation.IstioPolicyEvaluator;
import io.kubewarden.networkenforcer.common.evaluation.NetworkPolicyEvaluator;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Does the current spec allow the flow of a violation record? A record keeps only the workloads'
 * selectors, so each end is rebuilt as a pod carrying its selector's matchLabels in a namespace
 * labelled with its name. Only an explicit ALLOWED clears a record; anything the evaluator cannot
 * decide keeps it.
 */
public final class SpecAllowance {
  private static final Logger LOG = LoggerFactory.getLogger(SpecAllowance.class);

  private SpecAllowance() {}

  public static Predicate<ViolationRecord> of(WorkloadNetworkPolicySpec spec) {
    if (spec == null || spec.getBackend() == null) {
      return r -> false;
    }
    return r -> {
      try {
        return decide(spec, r) == Decision.ALLOWED;
      } catch (RuntimeException e) {
        // An evaluator that cannot judge (or is not there yet) must never erase a record.
        LOG.debug(
            "cannot evaluate violation {} against the current spec: {}", r.getId(), e.toString());
        return false;
      }
    };
  }

  static Decision decide(WorkloadNetworkPolicySpec spec, ViolationRecord r) {
    FlowEndpoint src = endpoint(r.getSource());
    FlowEndpoint dst = endpoint(r.getDest());
    Protocol protocol = r.getProtocol() == null ? Protocol.TCP : r.getProtocol();
    if (spec.getBackend() == Backend.istio) {
      return spec.getIstio() == null
          ? Decision.UNDETERMINED
          : IstioPolicyEvaluator.evaluate(spec.getIstio(), src, dst, protocol, r.getDstPort());
    }
    if (spec.getBackend() == Backend.cilium) {
      return spec.getCilium() == null
          ? Decision.UNDETERMINED
          : CiliumPolicyEvaluator.evaluate(
              spec.getCilium(),
              spec.getDirection(),
              src,
              dst,
              protocol,
              r.getDstPort(),
              r.httpRequest());
    }
    return spec.getKubernetes() == null
        ? Decision.UNDETERMINED
        : NetworkPolicyEvaluator.evaluate(
            spec.getKubernetes(), spec.getDirection(), src, dst, protocol, r.getDstPort());
  }

  static FlowEndpoint endpoint(ViolationEndpoint e) {
    if (e == null) {
      return FlowEndpoint.builder().build();
    }
    LabelSelector selector = e.getSelector();
    Map<String, String> podLabels =
        selector == null || selector.getMatchLabels() == null
            ? Map.of()
            : selector.getMatchLabels();
    return FlowEndpoint.builder()
        .namespace(e.getNamespace())
        .workload(WorkloadKind.fromKind(e.getOwnerKind()).orElse(null), e.getOwnerName())
        .workloadSelector(selector)
        .podLabels(podLabels)
        .namespaceLabels(
            e.getNamespace() == null ? Map.of() : Map.of(Labels.NAMESPACE_NAME, e.getNamespace()))
        .identity(e.getIdentity())
        .build();
  }
}
