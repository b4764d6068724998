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

/** A learned allow-list for one workload and direction, waiting for a person to promote it. */
@Group(CrdConstants.GROUP)
@Version(CrdConstants.VERSION)
@Kind("WorkloadNetworkPolicyProposal")
@Plural("workloadnetworkpolicyproposals")
@Singular("workloadnetworkpolicyproposal")
@ShortNames("wnpp")
@Annotations("helm.sh/resource-policy=keep")
@AdditionalPrinterColumn(
    name = "Backend",
    jsonPath = ".spec.backend",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Direction",
    jsonPath = ".spec.direction",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Target",
    jsonPath = ".spec.targetRef.name",
    type = AdditionalPrinterColumn.Type.STRING)
// kubectl's JSONPath has no length(): the count is a status field.
@AdditionalPrinterColumn(
    name = "Rules",
    jsonPath = ".status.ruleCount",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Converged",
    jsonPath = ".status.conditions[?(@.type==\"Converged\")].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class WorkloadNetworkPolicyProposal
    extends CustomResource<WorkloadNetworkPolicyProposalSpec, WorkloadNetworkPolicyProposalStatus>
    implements Namespaced {}
