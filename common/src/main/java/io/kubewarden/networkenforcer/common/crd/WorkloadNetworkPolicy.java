package io.kubewarden.networkenforcer.common.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.Annotations;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** A promoted allow-list, enforced in {@code monitor} or {@code protect} mode. */
@Group(CrdConstants.GROUP)
@Version(CrdConstants.VERSION)
@Kind("WorkloadNetworkPolicy")
@Plural("workloadnetworkpolicies")
@Singular("workloadnetworkpolicy")
@ShortNames("wnp")
@Annotations("helm.sh/resource-policy=keep")
// Column order is the order of these annotations (the generator sorts by JSON path; the CRD test
// generation restores this order).
@AdditionalPrinterColumn(
    name = "Mode",
    jsonPath = ".spec.mode",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Active Violations",
    jsonPath = ".status.activeViolationCount",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class WorkloadNetworkPolicy
    extends CustomResource<WorkloadNetworkPolicySpec, WorkloadNetworkPolicyStatus>
    implements Namespaced {}
