package io.kubewarden.networkenforcer.common.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Differential test: random NetworkPolicy specs, each written as the CiliumNetworkPolicy Cilium
 * documents as equivalent ({@link NetworkPolicyToCilium}), must get the same decision from {@link
 * NetworkPolicyEvaluator} and {@link CiliumPolicyEvaluator} for random flows between the pods of
 * {@link DifferentialCluster} and addresses outside it.
 *
 * <p>Deliberately outside the compared set, each pinned in {@code
 * CiliumNetworkPolicyDifferencesTest}: pod IPs inside an ipBlock (Cilium's CIDR rules see ends
 * outside the cluster only), named ports (not resolved by the Cilium evaluator), and a direction
 * outside the policy's policyTypes (a CiliumPolicy carries one direction per target, so the
 * evaluator reads a missing section as default deny). Reply traffic and host/world entities beyond
 * {@code all}/{@code cluster}/{@code world} do not arise: flows are single connections between pods
 * and external addresses. The policy-side pod lives in the policy's namespace, as it does for every
 * evaluated target.
 *
 * <p>The seed is random per run and printed; {@code -Dcnpdiff.seed=S} replays one.
 */
class CiliumNetworkPolicyDifferentialTest {
  private static final int POLICIES = 300;
  private static final int FLOWS_PER_POLICY = 200;
  private static final List<String> NAMESPACES = List.of("alice", "bob", "default", "prod");

  @Test
  void ciliumEvaluatorAgreesWithNetworkPolicyEvaluator() {
    long seed = Long.getLong("cnpdiff.seed", new Random().nextLong());
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
      List<Direction> covered = NetworkPolicyToCilium.directions(np);
      List<String> cidrs = RandomNetworkPolicies.cidrs(np);
      List<NetworkPolicyPort> ports = RandomNetworkPolicies.ports(np);
      List<FlowEndpoint> local = cluster.podsIn(namespace);
      for (int f = 0; f < FLOWS_PER_POLICY; f++, flows++) {
        Direction direction = covered.get(random.nextInt(covered.size()));
        FlowEndpoint policyPod = local.get(random.nextInt(local.size()));
        FlowEndpoint peer =
            random.nextInt(5) < 3
                ? cluster.pods().get(random.nextInt(cluster.pods().size()))
                : cluster.external(cidrs);
        FlowEndpoint src = direction == Direction.Ingress ? peer : policyPod;
        FlowEndpoint dst = direction == Direction.Ingress ? policyPod : peer;
        Protocol protocol = Protocol.values()[random.nextInt(Protocol.values().length)];
        RandomNetworkPolicies.Wire wire =
            RandomNetworkPolicies.nearPolicyPorts(random, ports, protocol, port(random));
        protocol = wire.protocol();
        int port = wire.port();
        Decision kubernetes =
            NetworkPolicyEvaluator.evaluate(np, direction, src, dst, protocol, port);
        Decision cilium = CiliumPolicyEvaluator.evaluate(cnp, direction, src, dst, protocol, port);
        decisions.merge(kubernetes, 1, Integer::sum);
        if (kubernetes != cilium && ++disagreements <= 5) {
          examples.add(
              String.format(
                  "%s %s -> %s %s/%d: networkpolicy %s, cilium %s%n  np:  %s%n  cnp: %s",
                  direction,
                  describe(src),
                  describe(dst),
                  protocol,
                  port,
                  kubernetes,
                  cilium,
                  json(np),
                  json(cnp)));
        }
      }
    }
    System.out.printf(
        "cnp/networkpolicy differential: %d policies, %d flows, disagreements: %d"
            + " (seed %d, -Dcnpdiff.seed=%d to reproduce; decisions %s)%n",
        POLICIES, flows, disagreements, seed, seed, decisions);
    assertThat(disagreements)
        .as("seed %d (-Dcnpdiff.seed=%d), first ones:%n%s", seed, seed, String.join("\n", examples))
        .isZero();
    // The run must reach every outcome, or agreeing would prove little.
    assertThat(decisions.keySet()).containsExactlyInAnyOrder(Decision.values());
  }

  /** Mostly near the policies' ports (ranges and their edges), sometimes any, sometimes 0. */
  private static int port(Random random) {
    int shape = random.nextInt(25);
    if (shape == 0) {
      return 0; // the record does not know the port
    }
    if (shape < 5) {
      return 1 + random.nextInt(65535);
    }
    return DifferentialCluster.PORTS.get(random.nextInt(DifferentialCluster.PORTS.size()))
        + random.nextInt(14)
        - 1;
  }

  private static String describe(FlowEndpoint e) {
    return e.isExternal() ? "external " + e.ip() : e.namespace() + "/" + e.podLabels();
  }

  private static String json(Object value) {
    try {
      return Json.mapper().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      return String.valueOf(value);
    }
  }
}
