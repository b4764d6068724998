package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Objects the tests build again and again. */
public final class Fixtures {
  public static final String NS = "shop";

  private Fixtures() {}

  public static LabelSelector app(String app) {
    return new LabelSelectorBuilder().withMatchLabels(Map.of("app", app)).build();
  }

  public static Deployment deployment(String name) {
    return new DeploymentBuilder()
        .withMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NS).build())
        .withNewSpec()
        .withSelector(app(name))
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Map.of("app", name))
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withImage("nginx")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** Ingress from deployment {@code peer} in the same namespace on TCP 8080. */
  public static NetworkPolicySpec ingressFrom(String target, String peer) {
    return new NetworkPolicySpecBuilder()
        .withPodSelector(app(target))
        .withPolicyTypes("Ingress")
        .addNewIngress()
        .addNewFrom()
        .withNewNamespaceSelector()
        .withMatchLabels(Map.of("kubernetes.io/metadata.name", NS))
        .endNamespaceSelector()
        .withPodSelector(app(peer))
        .endFrom()
        .addNewPort()
        .withProtocol("TCP")
        .withNewPort(8080)
        .endPort()
        .endIngress()
        .build();
  }

  public static WorkloadNetworkPolicyProposalSpec proposalSpec(String target, String peer) {
    WorkloadNetworkPolicyProposalSpec s = new WorkloadNetworkPolicyProposalSpec();
    s.setBackend(Backend.kubernetes);
    s.setDirection(Direction.Ingress);
    s.setTargetRef(new TargetRef(WorkloadKind.Deployment, target));
    s.setKubernetes(ingressFrom(target, peer));
    return s;
  }

  /**
   * The ingress spec of {@code target} with one rule per peer, in the given order, as the processor
   * learns it.
   */
  public static WorkloadNetworkPolicyProposalSpec proposalSpec(String target, List<String> peers) {
    WorkloadNetworkPolicyProposalSpec s = proposalSpec(target, peers.get(0));
    List<NetworkPolicyIngressRule> rules = new ArrayList<>(peers.size());
    for (String peer : peers) {
      rules.addAll(ingressFrom(target, peer).getIngress());
    }
    s.getKubernetes().setIngress(rules);
    return s;
  }

  public static ProposalSnapshot proposal(String target, String peer) {
    return new ProposalSnapshot(
        "deployment-" + target + "-ingress",
        NS,
        proposalSpec(target, peer),
        List.of(
            new RuleEvidence(
                0,
                NS + "/" + peer,
                List.of(
                    new PortEvidence(
                        "TCP", "8080", "2026-01-01T00:00:00Z", "2026-01-01T00:05:00Z", 3)))),
        Instant.parse("2026-01-01T00:05:00Z"));
  }

  public static WorkloadNetworkPolicyProposal wnpp(
      String target, String peer, Map<String, String> labels) {
    WorkloadNetworkPolicyProposal p = new WorkloadNetworkPolicyProposal();
    p.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-" + target + "-ingress")
            .withNamespace(NS)
            .withLabels(labels)
            .build());
    p.setSpec(proposalSpec(target, peer));
    return p;
  }

  public static WorkloadNetworkPolicy wnp(String target, String peer, Mode mode) {
    WorkloadNetworkPolicy p = new WorkloadNetworkPolicy();
    p.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-" + target + "-ingress")
            .withNamespace(NS)
            .build());
    WorkloadNetworkPolicySpec s = new WorkloadNetworkPolicySpec();
    s.copySharedFrom(proposalSpec(target, peer));
    s.setMode(mode);
    p.setSpec(s);
    return p;
  }

  public static WorkloadNetworkPolicy istioWnp(String target, LabelSelector selector, Mode mode) {
    WorkloadNetworkPolicy p = new WorkloadNetworkPolicy();
    p.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-" + target + "-ingress")
            .withNamespace(NS)
            .build());
    WorkloadNetworkPolicySpec s = new WorkloadNetworkPolicySpec();
    s.setBackend(Backend.istio);
    s.setDirection(Direction.Ingress);
    s.setTargetRef(new TargetRef(WorkloadKind.Deployment, target));
    s.setIstio(
        new IstioPolicy(
            selector,
            List.of(
                IstioPolicy.Rule.of(
                    List.of("cluster.local/ns/" + NS + "/sa/frontend"), List.of("8080")))));
    s.setMode(mode);
    p.setSpec(s);
    return p;
  }

  /** A cilium-backend egress policy: a name on 443 and the DNS rule it needs. */
  public static WorkloadNetworkPolicy ciliumEgressWnp(String target, Mode mode) {
    WorkloadNetworkPolicy p = new WorkloadNetworkPolicy();
    p.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-" + target + "-egress")
            .withNamespace(NS)
            .build());
    WorkloadNetworkPolicySpec s = new WorkloadNetworkPolicySpec();
    s.setBackend(Backend.cilium);
    s.setDirection(Direction.Egress);
    s.setTargetRef(new TargetRef(WorkloadKind.Deployment, target));
    CiliumPolicy.EgressRule byName =
        new CiliumPolicy.EgressRule(
            null,
            List.of(CiliumPolicy.FqdnSelector.name("api.example.com")),
            null,
            null,
            List.of(
                new CiliumPolicy.PortRule(
                    List.of(new CiliumPolicy.PortProtocol("443", "TCP")), null)));
    CiliumPolicy.EgressRule dns =
        new CiliumPolicy.EgressRule(
            List.of(
                new LabelSelector(
                    null,
                    Map.of(
                        "k8s:io.kubernetes.pod.namespace",
                        "kube-system",
                        "k8s:k8s-app",
                        "kube-dns"))),
            null,
            null,
            null,
            List.of(
                new CiliumPolicy.PortRule(
                    List.of(
                        new CiliumPolicy.PortProtocol("53", "UDP"),
                        new CiliumPolicy.PortProtocol("53", "TCP")),
                    new CiliumPolicy.L7Rules(List.of(CiliumPolicy.FqdnSelector.pattern("*"))))));
    s.setCilium(new CiliumPolicy(app(target), null, new ArrayList<>(List.of(byName, dns))));
    s.setMode(mode);
    p.setSpec(s);
    return p;
  }

  public static ViolationEndpoint endpoint(String workload) {
    return new ViolationEndpoint(NS, "Deployment", workload, null, app(workload));
  }

  /**
   * {@code from} tried to reach {@code policyTarget} on TCP {@code port}, against the policy of the
   * target.
   */
  public static ViolationObservation violation(
      String policyTarget, String from, int port, Instant at) {
    return new ViolationObservation(
        NS,
        "deployment-" + policyTarget + "-ingress",
        at,
        endpoint(from),
        endpoint(policyTarget),
        Protocol.TCP,
        port,
        Mode.monitor,
        null,
        null,
        Provider.calico,
        Backend.kubernetes,
        Direction.Ingress,
        1);
  }

  /**
   * A writer in namespace {@code network-enforcer} that takes and loses its lease within seconds,
   * reading the topics of {@code prefix} ({@code partitions} each) in the group {@code
   * <prefix>writer} and writing statuses every 300 ms; tests change what they need.
   */
  public static WriterConfig.Builder quickWriter(String bootstrap, String prefix, int partitions) {
    return WriterConfig.builder()
        .namespace("network-enforcer")
        .identity("writer-0")
        .leaseDuration(Duration.ofSeconds(3))
        .renewDeadline(Duration.ofSeconds(2))
        .retryPeriod(Duration.ofMillis(300))
        .statusUpdateInterval(Duration.ofMillis(300))
        .consumerGroup(prefix + "writer")
        .kafka(new KafkaSettings(bootstrap, prefix, partitions, (short) 1, Map.of()));
  }
}
