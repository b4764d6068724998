package io.kubewarden.networkenforcer.common.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.testing.KubeTools;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Differential test against Cilium's own policy engine: random CiliumNetworkPolicies (random
 * NetworkPolicy specs written as the CNP Cilium documents as equivalent, {@link
 * NetworkPolicyToCilium}) and random flows between the pods of {@link DifferentialCluster} and
 * addresses outside it, decided by {@link CiliumPolicyEvaluator} and by {@code
 * cilium-policy-oracle}. The oracle (hack/tools/cilium-policy-oracle, built from
 * github.com/cilium/cilium v1.20.2 by {@code hack/tools/cilium-policy-oracle.sh}) imports each
 * policy the way the agent imports a CNP and looks the connection up in the subject endpoint's
 * distilled policy map, the user-space copy of the datapath lookup.
 *
 * <p>Compared: endpoint and namespace selectors (labels and expressions), the namespace Cilium adds
 * to selectors that name none, ports, protocols and {@code endPort} ranges, CIDR rules with {@code
 * except} for addresses outside the cluster (IPv4 and IPv6: the oracle runs dual-stack), the
 * entities the cilium backend renders ({@code world}, {@code cluster}, {@code host}, {@code
 * kube-apiserver}) and {@code all}, added to a third of the policies, HTTP rules on TCP ports
 * (allowed at L3/L4, the requests are the proxy's), default deny once a pod is selected, and a pod
 * the policy does not select. Left out, as in {@link CiliumNetworkPolicyDifferentialTest}: a
 * direction the policy has no section for (the evaluator reads one CNP per target and direction, so
 * a missing section is default deny there), flows whose port or outside address is unknown (the
 * evaluator says undetermined, Cilium needs both), and named ports.
 *
 * <p>The seed is random per run and printed; {@code -Dcnpengine.seed=S} replays one.
 */
class CiliumEngineDifferentialTest {
  private static final int POLICIES = 250;
  private static final int FLOWS_PER_POLICY = 60;
  private static final List<String> NAMESPACES = List.of("alice", "bob", "default", "prod");
  private static final ObjectMapper JSON = Json.mapper();

  /** Entities the cilium backend renders ({@code --cilium-entities}), and {@code all}. */
  private static final List<String> ENTITIES =
      List.of("world", "cluster", "host", "kube-apiserver", "all");

  private static Process oracle;
  private static BufferedWriter toOracle;
  private static BufferedReader fromOracle;

  @BeforeAll
  static void startOracle() throws IOException {
    oracle =
        new ProcessBuilder(
                KubeTools.require(KubeTools.CILIUM_POLICY_ORACLE).toString(), "-dual-stack")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    toOracle =
        new BufferedWriter(
            new OutputStreamWriter(oracle.getOutputStream(), StandardCharsets.UTF_8));
    fromOracle =
        new BufferedReader(new InputStreamReader(oracle.getInputStream(), StandardCharsets.UTF_8));
  }

  @AfterAll
  static void stopOracle() throws Exception {
    if (oracle != null) {
      oracle.getOutputStream().close();
      if (!oracle.waitFor(10, TimeUnit.SECONDS)) {
        oracle.destroyForcibly();
      }
    }
  }

  @Test
  void theEvaluatorDecidesAsCiliumsEngine() throws IOException {
    long seed = Long.getLong("cnpengine.seed", new Random().nextLong());
    Random random = new Random(seed);
    DifferentialCluster cluster = new DifferentialCluster(random, 6);
    RandomNetworkPolicies policies = new RandomNetworkPolicies(random, cluster);
    NetworkPolicyToCilium translator = new NetworkPolicyToCilium(random);
    Map<Decision, Integer> decisions = new EnumMap<>(Decision.class);
    List<String> examples = new ArrayList<>();
    int disagreements = 0;
    int flows = 0;
    for (int p = 0; p < POLICIES; p++) {
      NetworkPolicySpec np = policies.next();
      String namespace = NAMESPACES.get(random.nextInt(NAMESPACES.size()));
      CiliumPolicy cnp = translator.translate(np, namespace);
      if (random.nextInt(3) == 0) {
        addEntityRules(cnp, random);
      }
      if (random.nextInt(3) == 0) {
        addHttpRules(cnp, random);
      }
      JsonNode spec = JSON.valueToTree(cnp);
      List<Direction> covered = NetworkPolicyToCilium.directions(np);
      List<String> cidrs = RandomNetworkPolicies.cidrs(np);
      List<NetworkPolicyPort> ports = RandomNetworkPolicies.ports(np);
      List<FlowEndpoint> local = cluster.podsIn(namespace);
      for (int f = 0; f < FLOWS_PER_POLICY; f++) {
        Direction direction = covered.get(random.nextInt(covered.size()));
        FlowEndpoint subject = local.get(random.nextInt(local.size()));
        FlowEndpoint peer =
            random.nextInt(5) < 3
                ? cluster.pods().get(random.nextInt(cluster.pods().size()))
                : cluster.external(cidrs);
        if (peer.isExternal() && peer.ip() == null) {
          continue; // no address: Cilium has no identity to look up
        }
        Protocol protocol = Protocol.values()[random.nextInt(Protocol.values().length)];
        int port = 1 + random.nextInt(65535);
        if (random.nextInt(4) > 0) {
          port = DifferentialCluster.PORTS.get(random.nextInt(DifferentialCluster.PORTS.size()));
        }
        RandomNetworkPolicies.Wire wire =
            RandomNetworkPolicies.nearPolicyPorts(random, ports, protocol, port);
        protocol = wire.protocol();
        port = Math.max(1, wire.port()); // Cilium needs a port
        FlowEndpoint src = direction == Direction.Ingress ? peer : subject;
        FlowEndpoint dst = direction == Direction.Ingress ? subject : peer;
        Decision ours = CiliumPolicyEvaluator.evaluate(cnp, direction, src, dst, protocol, port);
        String query = query(namespace, spec, direction, subject, peer, protocol, port);
        String cilium = ask(query);
        flows++;
        decisions.merge(ours, 1, Integer::sum);
        boolean ourAllow = ours == Decision.ALLOWED || ours == Decision.NOT_SELECTED;
        boolean agree = ours != Decision.UNDETERMINED && cilium.equals(ourAllow ? "allow" : "deny");
        if (!agree && ++disagreements <= 5) {
          examples.add(
              String.format(
                  "evaluator %s, cilium %s%n  query: %s", ours, cilium, query.replace('\n', ' ')));
        }
      }
    }
    System.out.printf(
        "cnp/cilium engine differential: %d policies, %d flows, disagreements: %d"
            + " (seed %d, -Dcnpengine.seed=%d to reproduce; decisions %s)%n",
        POLICIES, flows, disagreements, seed, seed, decisions);
    assertThat(disagreements)
        .as(
            "seed %d (-Dcnpengine.seed=%d), first ones:%n%s",
            seed, seed, String.join("\n", examples))
        .isZero();
    // Every outcome must occur, or agreeing would prove little.
    assertThat(decisions.keySet())
        .containsExactlyInAnyOrder(Decision.ALLOWED, Decision.DENIED, Decision.NOT_SELECTED);
  }

  /**
   * Adds to each direction the policy has a rule of entities (the names the cilium backend renders,
   * and {@code all}), on the ports of one of its rules or on every port.
   */
  private static void addEntityRules(CiliumPolicy cnp, Random random) {
    if (cnp.getIngress() != null) {
      CiliumPolicy.IngressRule rule = new CiliumPolicy.IngressRule();
      rule.setFromEntities(entities(random));
      if (!cnp.getIngress().isEmpty() && random.nextBoolean()) {
        rule.setToPorts(cnp.getIngress().get(random.nextInt(cnp.getIngress().size())).getToPorts());
      }
      cnp.setIngress(append(cnp.getIngress(), rule));
    }
    if (cnp.getEgress() != null) {
      CiliumPolicy.EgressRule rule = new CiliumPolicy.EgressRule();
      rule.setToEntities(entities(random));
      if (!cnp.getEgress().isEmpty() && random.nextBoolean()) {
        rule.setToPorts(cnp.getEgress().get(random.nextInt(cnp.getEgress().size())).getToPorts());
      }
      cnp.setEgress(append(cnp.getEgress(), rule));
    }
  }

  /**
   * Puts HTTP rules (the cilium backend's L7 learning) on the single TCP ports of the policy: at
   * L3/L4 such a port is allowed, and Cilium's proxy then judges each request.
   */
  private static void addHttpRules(CiliumPolicy cnp, Random random) {
    Stream.concat(
            cnp.getIngress() == null
                ? Stream.empty()
                : cnp.getIngress().stream().map(CiliumPolicy.IngressRule::getToPorts),
            cnp.getEgress() == null
                ? Stream.empty()
                : cnp.getEgress().stream().map(CiliumPolicy.EgressRule::getToPorts))
        .filter(ports -> ports != null)
        .flatMap(List::stream)
        .filter(
            rule ->
                rule.getPorts() != null
                    && !rule.getPorts().isEmpty()
                    && rule.getPorts().stream()
                        .allMatch(
                            p ->
                                "TCP".equals(p.getProtocol())
                                    && p.getEndPort() == null
                                    && !"0".equals(p.getPort())))
        .forEach(
            rule -> {
              if (random.nextBoolean()) {
                CiliumPolicy.L7Rules l7 = new CiliumPolicy.L7Rules();
                l7.setHttp(List.of(new CiliumPolicy.HttpRule("GET", "/api/v[0-9]+/items")));
                rule.setRules(l7);
              }
            });
  }

  private static List<String> entities(Random random) {
    List<String> names = new ArrayList<>(ENTITIES);
    java.util.Collections.shuffle(names, random);
    return List.copyOf(names.subList(0, 1 + random.nextInt(2)));
  }

  private static <T> List<T> append(List<T> list, T item) {
    List<T> out = new ArrayList<>(list);
    out.add(item);
    return out;
  }

  /** One line of the oracle's protocol (hack/tools/cilium-policy-oracle/README.md). */
  private static String query(
      String namespace,
      JsonNode spec,
      Direction direction,
      FlowEndpoint subject,
      FlowEndpoint peer,
      Protocol protocol,
      int port)
      throws IOException {
    ObjectNode q = JSON.createObjectNode();
    q.put("namespace", namespace);
    q.set("policy", spec);
    q.put("direction", direction == Direction.Ingress ? "ingress" : "egress");
    q.set("subject", pod(subject));
    if (peer.isExternal()) {
      q.set("peer", JSON.createObjectNode().put("ip", peer.ip()));
    } else {
      q.set("peer", pod(peer));
    }
    q.put("protocol", protocol.name());
    q.put("port", port);
    return JSON.writeValueAsString(q);
  }

  private static ObjectNode pod(FlowEndpoint pod) {
    ObjectNode node = JSON.createObjectNode();
    node.put("namespace", pod.namespace());
    node.set("labels", JSON.valueToTree(pod.podLabels()));
    node.set("namespaceLabels", JSON.valueToTree(pod.namespaceLabels()));
    return node;
  }

  /** Cilium's decision ("allow" or "deny"); an oracle error fails the test with its message. */
  private static String ask(String query) throws IOException {
    toOracle.write(query);
    toOracle.write('\n');
    toOracle.flush();
    String line = fromOracle.readLine();
    assertThat(line).as("the oracle's answer to %s", query).isNotNull();
    JsonNode answer = JSON.readTree(line);
    assertThat(answer.has("error"))
        .as("the oracle refused %s: %s", query, answer.path("error").asText())
        .isFalse();
    return answer.path("decision").asText();
  }
}
