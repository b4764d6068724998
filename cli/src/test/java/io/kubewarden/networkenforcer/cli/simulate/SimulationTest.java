package io.kubewarden.networkenforcer.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly which connections each kind of candidate denies, over flows shaped like the ingest's
 * output (resolved endpoints with labels, IPs, identities and named ports).
 */
class SimulationTest {
  static final Instant T0 = Instant.parse("2026-08-03T15:40:00Z");

  static final FlowEndpoint CLIENT =
      endpoint(
              "demo", "http-client", Map.of("app", "http-client"), "10.244.2.244", "http-client-sa")
          .build();
  static final FlowEndpoint SERVER =
      endpoint(
              "demo", "http-server", Map.of("app", "http-server"), "10.244.1.103", "http-server-sa")
          .namedPorts(List.of(new NamedPort("http", 18080, Protocol.TCP)))
          .build();
  static final FlowEndpoint DNS =
      endpoint("kube-system", "coredns", Map.of("k8s-app", "kube-dns"), "10.96.0.10", "coredns")
          .build();
  static final FlowEndpoint SCRAPER =
      endpoint("other", "scraper", Map.of("app", "scraper"), "10.244.3.7", "scraper").build();

  /**
   * client -> server TCP 18080 (x3), UDP 18081 (x2), unknown TCP port; client -> dns; scraper ->
   * server 9090.
   */
  static final List<FlowRecord> FLOWS =
      List.of(
          flow(1, CLIENT, SERVER, Protocol.TCP, 18080, 3),
          flow(2, CLIENT, SERVER, Protocol.UDP, 18081, 2),
          flow(3, CLIENT, DNS, Protocol.UDP, 53, 1),
          flow(4, SCRAPER, SERVER, Protocol.TCP, 9090, 1),
          flow(5, CLIENT, SERVER, Protocol.TCP, 0, 1),
          flow(6, CLIENT, SERVER, Protocol.UDP, 18081, 4));

  @TempDir Path dir;

  @Test
  void workloadNetworkPolicyIngressDeniesWhatItsRulesLeaveOut() throws IOException {
    Simulation.Result r =
        simulate(
            """
        apiVersion: networkenforcer.kubewarden.io/v1alpha1
        kind: WorkloadNetworkPolicy
        metadata: {name: deployment-http-server-ingress, namespace: demo}
        spec:
          backend: kubernetes
          mode: protect
          targetRef: {kind: Deployment, name: http-server}
          direction: Ingress
          kubernetes:
            podSelector: {matchLabels: {app: http-server}}
            policyTypes: [Ingress]
            ingress:
            - from:
              - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: demo}}
                podSelector: {matchLabels: {app: http-client}}
              ports: [{protocol: TCP, port: 18080}]
            - from:
              - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}
              ports: [{protocol: TCP, port: 8443}]
        """);
    String wnp = "WorkloadNetworkPolicy demo/deployment-http-server-ingress";
    assertThat(r.denied())
        .containsExactly(
            new Simulation.Connection(
                "demo/Deployment/http-server",
                Direction.Ingress,
                "demo/Deployment/http-client",
                Protocol.UDP,
                18081,
                6,
                at(2),
                at(6),
                List.of(wnp)),
            new Simulation.Connection(
                "demo/Deployment/http-server",
                Direction.Ingress,
                "other/Deployment/scraper",
                Protocol.TCP,
                9090,
                1,
                at(4),
                at(4),
                List.of(wnp)));
    assertThat(r.undetermined())
        .containsExactly(
            new Simulation.Connection(
                "demo/Deployment/http-server",
                Direction.Ingress,
                "demo/Deployment/http-client",
                Protocol.TCP,
                0,
                1,
                at(5),
                at(5),
                List.of(wnp)));
    assertThat(r.unmatchedRules()).extracting(Simulation.UnmatchedRule::index).containsExactly(1);
    assertThat(r.unmatchedRules().get(0).rule()).contains("8443");
    assertThat(r.flows()).isEqualTo(6);
  }

  @Test
  void proposalEgressDeniesTheOtherPeers() throws IOException {
    Simulation.Result r =
        simulate(
            """
        kind: WorkloadNetworkPolicyProposal
        metadata: {name: deployment-http-client-egress, namespace: demo}
        spec:
          backend: kubernetes
          targetRef: {kind: Deployment, name: http-client}
          direction: Egress
          kubernetes:
            podSelector: {matchLabels: {app: http-client}}
            policyTypes: [Egress]
            egress:
            - to:
              - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: demo}}
                podSelector: {matchLabels: {app: http-server}}
        """);
    assertThat(r.denied())
        .containsExactly(
            new Simulation.Connection(
                "demo/Deployment/http-client",
                Direction.Egress,
                "kube-system/Deployment/coredns",
                Protocol.UDP,
                53,
                1,
                at(3),
                at(3),
                List.of("WorkloadNetworkPolicyProposal demo/deployment-http-client-egress")));
    assertThat(r.undetermined()).isEmpty();
    assertThat(r.unmatchedRules()).isEmpty();
  }

  @Test
  void networkPolicyWithANamedPortResolvesItOnTheDestination() throws IOException {
    Simulation.Result r =
        simulate(
            """
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata: {name: web, namespace: demo}
        spec:
          podSelector: {matchLabels: {app: http-server}}
          ingress:
          - from: [{namespaceSelector: {}}]
            ports: [{port: http}]
        """);
    assertThat(r.denied())
        .extracting(c -> c.peer() + " " + c.protocol() + "/" + c.port() + " x" + c.count())
        .containsExactly(
            "demo/Deployment/http-client UDP/18081 x6", "other/Deployment/scraper TCP/9090 x1");
    assertThat(r.undetermined()).extracting(Simulation.Connection::port).containsExactly(0);
    assertThat(r.unmatchedRules()).isEmpty();
  }

  @Test
  void ipBlockEgressAllowsItsCidrMinusExcept() throws IOException {
    Simulation.Result r =
        simulate(
            """
        kind: NetworkPolicy
        metadata: {name: to-pods, namespace: demo}
        spec:
          podSelector: {matchLabels: {app: http-client}}
          policyTypes: [Egress]
          egress:
          - to: [{ipBlock: {cidr: 10.244.0.0/16, except: [10.244.1.0/24]}}]
          - to: [{ipBlock: {cidr: 10.96.0.10/32}}]
            ports: [{protocol: UDP, port: 53}]
        """);
    // The server's 10.244.1.103 is in the except range: everything to it is denied; DNS is allowed.
    assertThat(r.denied())
        .extracting(
            c ->
                c.target()
                    + " "
                    + c.direction()
                    + " "
                    + c.peer()
                    + " "
                    + c.protocol()
                    + "/"
                    + c.port()
                    + " x"
                    + c.count())
        .containsExactly(
            "demo/Deployment/http-client Egress demo/Deployment/http-server TCP/0 x1",
            "demo/Deployment/http-client Egress demo/Deployment/http-server TCP/18080 x3",
            "demo/Deployment/http-client Egress demo/Deployment/http-server UDP/18081 x6");
    assertThat(r.unmatchedRules()).extracting(Simulation.UnmatchedRule::index).containsExactly(0);
  }

  @Test
  void istioAuthorizationPolicyChecksPrincipalsAndTcpPortsOnly() throws IOException {
    Simulation.Result r =
        simulate(
            """
        apiVersion: security.istio.io/v1
        kind: AuthorizationPolicy
        metadata: {name: http-server, namespace: demo}
        spec:
          action: ALLOW
          selector: {matchLabels: {app: http-server}}
          rules:
          - from: [{source: {principals: [cluster.local/ns/demo/sa/http-client-sa]}}]
            to: [{operation: {ports: ["18080"]}}]
        """);
    // UDP is invisible to ztunnel; the unknown port is undetermined; the scraper's identity is not
    // allowed.
    assertThat(r.denied())
        .containsExactly(
            new Simulation.Connection(
                "demo/Deployment/http-server",
                Direction.Ingress,
                "other/Deployment/scraper",
                Protocol.TCP,
                9090,
                1,
                at(4),
                at(4),
                List.of("AuthorizationPolicy demo/http-server")));
    assertThat(r.undetermined()).extracting(Simulation.Connection::port).containsExactly(0);
  }

  @Test
  void istioBackendWorkloadPolicyBehavesLikeItsAuthorizationPolicy() throws IOException {
    Simulation.Result r =
        simulate(
            """
        kind: WorkloadNetworkPolicy
        metadata: {name: deployment-http-server-ingress, namespace: demo}
        spec:
          backend: istio
          targetRef: {kind: Deployment, name: http-server}
          direction: Ingress
          istio:
            selector: {matchLabels: {app: http-server}}
            rules:
            - from: [{source: {principals: [cluster.local/ns/other/sa/scraper]}}]
              to: [{operation: {ports: ["9090"]}}]
        """);
    assertThat(r.denied())
        .extracting(c -> c.peer() + " " + c.protocol() + "/" + c.port())
        .containsExactly(
            "demo/Deployment/http-client TCP/0", "demo/Deployment/http-client TCP/18080");
    assertThat(r.undetermined())
        .isEmpty(); // no rule admits the client's principal, whatever the port
  }

  @Test
  void allowEverythingDeniesNothing() throws IOException {
    Simulation.Result r =
        simulate(
            """
        kind: NetworkPolicy
        metadata: {name: allow-all, namespace: demo}
        spec:
          podSelector: {}
          policyTypes: [Ingress, Egress]
          ingress: [{}]
          egress: [{}]
        """);
    assertThat(r.denied()).isEmpty();
    assertThat(r.undetermined()).isEmpty();
    assertThat(r.unmatchedRules()).isEmpty();
    assertThat(r.selectedFlows()).containsExactly(Map.entry("NetworkPolicy demo/allow-all", 10L));
  }

  @Test
  void allowNothingDeniesEveryConnectionOfTheNamespaceBothWays() throws IOException {
    Simulation.Result r =
        simulate(
            """
        kind: NetworkPolicy
        metadata: {name: deny-all, namespace: demo}
        spec:
          podSelector: {}
          policyTypes: [Ingress, Egress]
        """);
    assertThat(r.denied())
        .extracting(
            c ->
                c.target()
                    + " "
                    + c.direction()
                    + " "
                    + c.peer()
                    + " "
                    + c.protocol()
                    + "/"
                    + c.port()
                    + " x"
                    + c.count())
        .containsExactly(
            "demo/Deployment/http-client Egress demo/Deployment/http-server TCP/0 x1",
            "demo/Deployment/http-client Egress demo/Deployment/http-server TCP/18080 x3",
            "demo/Deployment/http-client Egress demo/Deployment/http-server UDP/18081 x6",
            "demo/Deployment/http-client Egress kube-system/Deployment/coredns UDP/53 x1",
            "demo/Deployment/http-server Ingress demo/Deployment/http-client TCP/0 x1",
            "demo/Deployment/http-server Ingress demo/Deployment/http-client TCP/18080 x3",
            "demo/Deployment/http-server Ingress demo/Deployment/http-client UDP/18081 x6",
            "demo/Deployment/http-server Ingress other/Deployment/scraper TCP/9090 x1");
    assertThat(r.undetermined()).isEmpty();
  }

  @Test
  void severalDocumentsAddUpWithinALayerAndEitherLayerCanDeny() throws IOException {
    Simulation.Result r =
        simulate(
            """
        kind: NetworkPolicy
        metadata: {name: from-client, namespace: demo}
        spec:
          podSelector: {matchLabels: {app: http-server}}
          ingress: [{from: [{podSelector: {matchLabels: {app: http-client}}}]}]
        ---
        kind: NetworkPolicy
        metadata: {name: from-other, namespace: demo}
        spec:
          podSelector: {matchLabels: {app: http-server}}
          ingress: [{from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}}]}]
        ---
        kind: AuthorizationPolicy
        metadata: {name: client-only, namespace: demo}
        spec:
          selector: {matchLabels: {app: http-server}}
          rules: [{from: [{source: {principals: [cluster.local/ns/demo/sa/http-client-sa]}}]}]
        """);
    // The two NetworkPolicies together allow every ingress; the Istio layer still denies the
    // scraper.
    assertThat(r.denied())
        .containsExactly(
            new Simulation.Connection(
                "demo/Deployment/http-server",
                Direction.Ingress,
                "other/Deployment/scraper",
                Protocol.TCP,
                9090,
                1,
                at(4),
                at(4),
                List.of("AuthorizationPolicy demo/client-only")));
  }

  @Test
  void filesThatAreNotPoliciesAreRefusedWithWhatToFix() throws IOException {
    assertThatThrownBy(() -> load("kind: ConfigMap\nmetadata: {name: x, namespace: demo}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("document 1 of")
        .hasMessageContaining("is a ConfigMap, not a policy");
    assertThatThrownBy(() -> load("kind: [unclosed\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not YAML");
    assertThatThrownBy(() -> load(""))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("holds no document");
    assertThatThrownBy(
            () -> load("kind: NetworkPolicy\nmetadata: {name: x}\nspec: {podSelector: {}}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("has no metadata.namespace");
    assertThatThrownBy(
            () ->
                load(
                    """
        kind: AuthorizationPolicy
        metadata: {name: x, namespace: demo}
        spec:
          rules: [{from: [{source: {namespaces: [demo]}}]}]
        """))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("uses spec.rules[0].from[0].source.namespaces");
    assertThatThrownBy(
            () ->
                load(
                    "kind: AuthorizationPolicy\nmetadata: {name: x, namespace: demo}\n"
                        + "spec: {action: DENY}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("action DENY");
  }

  /**
   * Found by PolicyInputsFuzzingTest: an AuthorizationPolicy whose spec.rules[0].to[0].operation is
   * the string "a/b/c/d/e" was refused with Jackson's "Cannot construct instance of
   * `io.kubewarden...IstioPolicy$Operation`"; a selector whose matchLabels is a number escaped as a
   * runtime failure; a NetworkPolicy without spec was refused without saying in which file. Each
   * now names the field, or the document, to fix.
   */
  @Test
  void aFieldThatDoesNotReadIsNamedWithItsDocument() throws IOException {
    String policy =
        """
        kind: AuthorizationPolicy
        metadata: {name: x, namespace: demo}
        spec:
          selector: {matchLabels: SELECTOR}
          rules: [{to: [{operation: OPERATION}]}]
        """;
    assertThatThrownBy(
            () -> load(policy.replace("SELECTOR", "{app: web}").replace("OPERATION", "a/b/c/d/e")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("AuthorizationPolicy demo/x (document 1 of ")
        .hasMessageEndingWith(") is not valid at spec.rules[0].to[0].operation: want an object")
        .hasMessageNotContaining("io.kubewarden");
    assertThatThrownBy(
            () -> load(policy.replace("SELECTOR", "70000").replace("OPERATION", "{ports: ['80']}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageEndingWith(") is not valid at spec.selector.matchLabels: want a map");
    assertThatThrownBy(() -> load("kind: NetworkPolicy\nmetadata: {name: x, namespace: demo}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageMatching(
            "NetworkPolicy demo/x has no spec \\(document 1 of .*policy-\\d+\\.yaml\\)");
    // A byte that is not UTF-8 said "java.io.CharConversionException: Invalid UTF-8 start byte
    // 0xad".
    Path notUtf8 =
        Files.write(
            dir.resolve("latin1.yaml"), new byte[] {'k', 'i', 'n', 'd', ':', ' ', (byte) 0xad});
    assertThatThrownBy(() -> PolicyFile.load(notUtf8))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("latin1.yaml is not YAML: Invalid UTF-8 start byte 0xad")
        .hasMessageNotContaining("java.");
  }

  private List<CandidatePolicy> load(String yaml) throws IOException {
    Path file = Files.writeString(dir.resolve("policy-" + System.nanoTime() + ".yaml"), yaml);
    return PolicyFile.load(file);
  }

  private Simulation.Result simulate(String yaml) throws IOException {
    Simulation simulation = new Simulation(load(yaml));
    FLOWS.forEach(simulation::accept);
    return simulation.result();
  }

  static Instant at(int second) {
    return T0.plusSeconds(second);
  }

  static FlowRecord flow(
      int second, FlowEndpoint src, FlowEndpoint dst, Protocol protocol, int port, long count) {
    return new FlowRecord(
        at(second),
        Provider.cilium,
        protocol,
        port,
        src,
        dst,
        Verdict.FORWARDED,
        null,
        count,
        Reporter.SOURCE);
  }

  static FlowEndpoint.Builder endpoint(
      String ns, String name, Map<String, String> labels, String ip, String sa) {
    return FlowEndpoint.builder()
        .namespace(ns)
        .workload(WorkloadKind.Deployment, name)
        .workloadSelector(new LabelSelectorBuilder().withMatchLabels(labels).build())
        .podLabels(labels)
        .namespaceLabels(Map.of("kubernetes.io/metadata.name", ns))
        .podName(name + "-7d4b9c-x2x8z")
        .ip(ip)
        .serviceAccount(sa)
        .identity("spiffe://cluster.local/ns/" + ns + "/sa/" + sa);
  }
}
