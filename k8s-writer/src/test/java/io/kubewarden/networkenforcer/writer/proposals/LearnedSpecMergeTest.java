package io.kubewarden.networkenforcer.writer.proposals;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.writer.Fixtures;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a reviewer changed stays; only what was learned since the last apply is added. */
class LearnedSpecMergeTest {

  static WorkloadNetworkPolicyProposalSpec kubernetes(String... peersAndPorts) {
    WorkloadNetworkPolicyProposalSpec spec = Fixtures.proposalSpec("api", "web");
    List<NetworkPolicyIngressRule> rules = new ArrayList<>();
    for (String peerPorts : peersAndPorts) {
      String[] parts = peerPorts.split(":");
      NetworkPolicyIngressRule rule = Fixtures.ingressFrom("api", parts[0]).getIngress().get(0);
      List<NetworkPolicyPort> ports = new ArrayList<>();
      for (String port : parts[1].split(",")) {
        ports.add(
            new NetworkPolicyPortBuilder()
                .withProtocol("TCP")
                .withNewPort(Integer.parseInt(port))
                .build());
      }
      rule.setPorts(ports);
      rules.add(rule);
    }
    spec.getKubernetes().setIngress(rules);
    return spec;
  }

  static List<String> rules(WorkloadNetworkPolicyProposalSpec spec) {
    return spec.getKubernetes().getIngress().stream()
        .map(
            r ->
                r.getFrom().get(0).getPodSelector().getMatchLabels().get("app")
                    + ":"
                    + String.join(
                        ",",
                        r.getPorts().stream()
                            .map(p -> String.valueOf(p.getPort().getIntVal()))
                            .toList()))
        .toList();
  }

  @Test
  void newPeersAndNewPortsJoinWhatTheReviewerLeft() {
    WorkloadNetworkPolicyProposalSpec previous = kubernetes("web:8080", "batch:9090");
    // The reviewer removed batch, narrowed nothing, and added db by hand.
    WorkloadNetworkPolicyProposalSpec live = kubernetes("web:8080", "db:5432");
    WorkloadNetworkPolicyProposalSpec learned =
        kubernetes("web:8080,8443", "batch:9090", "cache:6379");

    assertThat(rules(LearnedSpecMerge.merge(previous, learned, live)))
        .containsExactly("web:8080,8443", "db:5432", "cache:6379");
  }

  @Test
  void aRemovedPeerComesBackOnlyWithAPortThatIsNew() {
    WorkloadNetworkPolicyProposalSpec previous = kubernetes("web:8080", "batch:9090");
    WorkloadNetworkPolicyProposalSpec live = kubernetes("web:8080");
    WorkloadNetworkPolicyProposalSpec learned = kubernetes("web:8080", "batch:9090,9091");

    assertThat(rules(LearnedSpecMerge.merge(previous, learned, live)))
        .containsExactly("web:8080", "batch:9091");
  }

  @Test
  void aProposalNobodyEditedBecomesExactlyWhatWasLearnedInTheLearnedOrder() {
    // Learned first 9090 of web, then 8080 sorted before it: the live copy is the earlier learned
    // one.
    WorkloadNetworkPolicyProposalSpec previous = kubernetes("web:9090");
    WorkloadNetworkPolicyProposalSpec learned = kubernetes("batch:7070", "web:8080,9090");

    WorkloadNetworkPolicyProposalSpec merged =
        LearnedSpecMerge.merge(previous, learned, kubernetes("web:9090"));

    assertThat(merged).isEqualTo(learned);
    assertThat(rules(merged)).containsExactly("batch:7070", "web:8080,9090");
  }

  @Test
  void nothingNewLeavesTheReviewersSpecAsItIs() {
    WorkloadNetworkPolicyProposalSpec previous = kubernetes("web:8080");
    WorkloadNetworkPolicyProposalSpec live = kubernetes("db:5432");
    assertThat(LearnedSpecMerge.merge(previous, kubernetes("web:8080"), live)).isEqualTo(live);
  }

  @Test
  void istioPrincipalsAndPortsMergeTheSameWay() {
    WorkloadNetworkPolicyProposalSpec previous =
        istio(IstioPolicy.Rule.of(List.of("cluster.local/ns/shop/sa/web"), List.of("8080")));
    WorkloadNetworkPolicyProposalSpec live =
        istio(IstioPolicy.Rule.of(List.of("cluster.local/ns/shop/sa/db"), List.of("5432")));
    WorkloadNetworkPolicyProposalSpec learned =
        istio(
            IstioPolicy.Rule.of(List.of("cluster.local/ns/shop/sa/web"), List.of("8080")),
            IstioPolicy.Rule.of(List.of("cluster.local/ns/shop/sa/batch"), List.of("9090")));

    WorkloadNetworkPolicyProposalSpec merged = LearnedSpecMerge.merge(previous, learned, live);
    assertThat(merged.getIstio().getRules())
        .containsExactly(
            IstioPolicy.Rule.of(List.of("cluster.local/ns/shop/sa/db"), List.of("5432")),
            IstioPolicy.Rule.of(List.of("cluster.local/ns/shop/sa/batch"), List.of("9090")));
    assertThat(merged.getIstio().getSelector()).isEqualTo(live.getIstio().getSelector());
  }

  static WorkloadNetworkPolicyProposalSpec istio(IstioPolicy.Rule... rules) {
    WorkloadNetworkPolicyProposalSpec s = new WorkloadNetworkPolicyProposalSpec();
    s.setBackend(Backend.istio);
    s.setDirection(Direction.Ingress);
    s.setTargetRef(new TargetRef(WorkloadKind.Deployment, "api"));
    s.setIstio(new IstioPolicy(Fixtures.app("api"), new ArrayList<>(List.of(rules))));
    return s;
  }

  static WorkloadNetworkPolicyProposalSpec cilium(String egressYaml) {
    try {
      return Json.yaml()
          .readValue(
              "backend: cilium\ndirection: Egress\ntargetRef: {kind: Deployment, name: web}\n"
                  + "cilium:\n  endpointSelector: {matchLabels: {app: web}}\n  egress:\n"
                  + egressYaml.indent(2),
              WorkloadNetworkPolicyProposalSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static final String DB =
      """
      - toEndpoints: [{matchLabels: {app: db}}]
        toPorts: [{ports: [{port: "5432", protocol: TCP}]}]
      """;

  static final String API_NAME =
      """
      - toFQDNs: [{matchName: api.example.com}]
        toPorts: [{ports: [{port: "443", protocol: TCP}]}]
      - toEndpoints: [{matchLabels: {k8s:io.kubernetes.pod.namespace: kube-system, k8s:k8s-app: kube-dns}}]
        toPorts:
        - ports: [{port: "53", protocol: UDP}, {port: "53", protocol: TCP}]
          rules: {dns: [{matchPattern: "*"}]}
      """;

  @Test
  void ciliumRulesAreMatchedByTheirPeersAndTheDnsRuleArrivesWhole() {
    WorkloadNetworkPolicyProposalSpec previous = cilium(DB);
    // The reviewer added a pattern rule of their own; since then db gained a port and a name and
    // its DNS rule were learned.
    String own =
        """
        - toFQDNs: [{matchPattern: "*.example.org"}]
          toPorts: [{ports: [{port: "443", protocol: TCP}]}]
        """;
    WorkloadNetworkPolicyProposalSpec live = cilium(DB + own);
    WorkloadNetworkPolicyProposalSpec learned =
        cilium(
            DB.replace(
                    "{port: \"5432\", protocol: TCP}]",
                    "{port: \"5432\", protocol: TCP}, {port: \"5433\", protocol: TCP}]")
                + API_NAME);

    assertThat(LearnedSpecMerge.merge(previous, learned, live))
        .isEqualTo(
            cilium(
                DB.replace(
                        "{port: \"5432\", protocol: TCP}]",
                        "{port: \"5432\", protocol: TCP}, {port: \"5433\", protocol: TCP}]")
                    + own
                    + API_NAME));
  }
}
