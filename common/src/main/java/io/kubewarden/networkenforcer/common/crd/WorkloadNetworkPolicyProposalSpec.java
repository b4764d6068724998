package io.kubewarden.networkenforcer.common.crd;

/** Spec of a WorkloadNetworkPolicyProposal: the learned allow-list. */
public class WorkloadNetworkPolicyProposalSpec extends PolicySpec {}
